# Shared by the bench/ns2_yang_*.tcl scripts (sourced): the simulator seeded with SEED, and
# Yang et al.'s agents with 1000-byte payloads (window_ 10000, ns-2.35 defaults otherwise):
# AGENT Sack1 or Reno (with Agent/TCPSink[/Sack1]; INCREASE and DECREASE, the arguments after
# AGENT, set increase_num_ and decrease_num_: GAIMD) or TFRC (Agent/TFRC and Agent/TFRCSink).
# usage: yang_setup SEED AGENT ?INCREASE DECREASE?  (sets the global ns)
#        yang_flow FROM TO                          (returns {source app}: start/stop the app)
#        yang_path P                                (Yang's one-flow path, below; returns
#          {s L R d rng u em}: the nodes, the RNG and uniform variable of its error model, and
#          the error model (the caller may change its rate_ as the run goes))
#        yang_at T SCRIPT                           (runs SCRIPT when the packets that finished
#          serialization on the bottleneck at T reach its error model: T + 30 ms, below)
#        yang_run_binned S L APP START              (starts APP at START, counts with yang_sample
#          the packets node S sends into the link to L in each global bin from 0 to the global
#          simt, prints them as one JSON line {"sim":"ns-2.35","sent_per_bin":[...]} and runs
#          the simulation: the caller sets bin and simt first)
#        yang_sample                                (appends to the global counts the packets
#          the global queue monitor out passed since the last call, and calls itself again a
#          global bin later until the global simt; the caller sets last first)
source [file join [file dirname [info script]] ns2_rng.tcl]
proc yang_setup {seed agent args} {
  global ns yang_agent yang_seed
  set yang_agent $agent
  set yang_seed $seed
  if {[llength $args] == 2} {
    Agent/TCP set increase_num_ [lindex $args 0]
    Agent/TCP set decrease_num_ [lindex $args 1]
  }
  set ns [new Simulator]
  seed_run $seed
  Agent/TCP set packetSize_ 1000
  Agent/TCP set window_ 10000
  Agent/TFRC set packetSize_ 1000
}
proc yang_flow {from to} {
  global ns yang_agent
  if {$yang_agent == "TFRC"} {
    set src [new Agent/TFRC]; set snk [new Agent/TFRCSink]; set app $src
  } else {
    set src [new Agent/TCP/$yang_agent]
    set snk [new [expr {$yang_agent == "Sack1" ? "Agent/TCPSink/Sack1" : "Agent/TCPSink"}]]
    set app [new Application/FTP]; $app attach-agent $src
  }
  $ns attach-agent $from $src; $ns attach-agent $to $snk; $ns connect $src $snk
  return [list $src $app]
}
# s -> L 100 Mb/s 10 ms, L -> R 2.5 Mb/s 30 ms DropTail 50 whose packets are lost
# independently with probability P after its queue (link-lossmodel: ns-link.tcl's
# insert-linkloss, as ccscope's loss modules), R -> d 100 Mb/s 10 ms; the error model draws from
# an RNG of its own. insert-linkloss puts the error model after the link's delay element, so a
# packet meets it 30 ms after its serialization ends, where ccscope's loss module decides: a
# change of the loss at T in ccscope is one at T + 30 ms here (yang_at).
proc yang_path {p} {
  global ns yang_seed
  set s [$ns node]; set L [$ns node]; set R [$ns node]; set d [$ns node]
  $ns duplex-link $s $L 100Mb 10ms DropTail
  $ns duplex-link $L $R 2.5Mb 30ms DropTail
  $ns duplex-link $R $d 100Mb 10ms DropTail
  $ns queue-limit $L $R 50
  set em [new ErrorModel]
  $em unit pkt
  $em set rate_ $p
  set u [new RandomVariable/Uniform]
  set rng [run_rng $yang_seed]
  $u use-rng $rng
  $em ranvar $u
  $em drop-target [new Agent/Null]
  $ns link-lossmodel $em $L $R
  return [list $s $L $R $d $rng $u $em]
}
proc yang_at {t script} {
  global ns
  $ns at [expr {$t + 0.030}] $script
}
proc yang_sample {} {
  global ns out bin counts last simt
  set now [$out set pdepartures_]
  lappend counts [expr $now - $last]
  set last $now
  if {[$ns now] + $bin < $simt + 1e-9} { $ns at [expr [$ns now] + $bin] "yang_sample" }
}
proc yang_run_binned {s L app start} {
  global ns out counts last bin simt
  set out [$ns monitor-queue $s $L ""]
  $ns at $start "$app start"
  set counts {}
  set last 0
  $ns at $bin "yang_sample"
  $ns at [expr {$simt + $bin / 2}] "yang_print_counts"
  $ns run
}
proc yang_print_counts {} {
  global counts
  puts [format "{\"sim\":\"ns-2.35\",\"sent_per_bin\":\[%s\]}" [join $counts ,]]
  exit 0
}
