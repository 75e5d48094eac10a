# What bench/ns2_cai_fig16.tcl, ns2_cai_fig17.tcl, ns2_cai_fig8.tcl and ns2_cai_table1.tcl
# share, Cai et al.'s §V set-up in ns-2.35: `cai_start SEED` makes the simulator (global ns),
# seeds its RNG and sets the agents' and RED's defaults (packetSize_ 1000, window_ 10000; RED
# counted in packets with mean_pktsize_ 1000, as ccscope's); `sack_flow L R RATE DELAY` adds a
# host reaching L over RATE and DELAY, a sink reached from R over RATE and 1 ms, and a Sack1 FTP
# between them, and returns its agent and FTP; `acked_between FLOWS WARMUP_S SIM_S` prints at
# SIM_S one JSON line of the packets each agent had acknowledged (ack_) since WARMUP_S, and the
# packet size on the wire.
#
# Cai et al.'s DTAIMD(ALPHA, 0.875) on a Sack1 agent (ns-2.35 has no DTAIMD agent): `taimd SRC
# ALPHA` makes SRC cut to int(0.875 int(cwnd_)) packets, at least one fewer (decrease_num_
# 0.875, precisionReduce_ false) and increase by ALPHA per RTT (TAIMD); `dtaimd SRC ALPHA` also
# sets increase_num_ from cwnd_ by Cai et al.'s L1-L6 scaled by the class's ALPHA/0.2 (ALPHA at
# 8 packets or more, ALPHA/0.2 at one, ALPHA/0.2 x 3/(2w - 1) between, w the whole packets of
# cwnd_) each time cwnd_ changes, so that every ACK grows the window by the alpha of the window
# it finds, as ccscope's DTAIMD does: the agent traces cwnd_ into a Tcl channel of this script's
# own (Tcl 8.5's `chan create`, unbuffered), whose every write sets increase_num_. (A timer
# every 10 ms left the alpha of the window before for the second of two ACKs that come close
# together, and at windows of one to three packets, where alpha falls with each whole packet,
# that made DTAIMD grow faster than its rule.)
source [file join [file dirname [info script]] ns2_rng.tcl]
proc cai_start {seed} {
  global ns
  set ns [new Simulator]
  seed_run $seed
  Agent/TCP set packetSize_ 1000
  Agent/TCP set window_ 10000
  Queue/RED set bytes_ false
  Queue/RED set queue_in_bytes_ false
  Queue/RED set mean_pktsize_ 1000
}
proc sack_flow {L R rate delay} {
  global ns
  set s [$ns node]; set d [$ns node]
  $ns duplex-link $s $L $rate $delay DropTail
  $ns duplex-link $R $d $rate 1ms DropTail
  $ns queue-limit $s $L 10000
  set src [new Agent/TCP/Sack1]; set snk [new Agent/TCPSink/Sack1]
  $ns attach-agent $s $src; $ns attach-agent $d $snk; $ns connect $src $snk
  set ftp [new Application/FTP]; $ftp attach-agent $src
  return [list $src $ftp]
}
proc acked_between {flows warm simt} {
  global ns
  $ns at $warm "acked_mark {$flows}"
  $ns at $simt "acked_print {$flows}"
}
proc acked_mark {flows} {
  global acked_before
  set acked_before {}
  foreach f $flows { lappend acked_before [$f set ack_] }
}
proc acked_print {flows} {
  global acked_before
  set got {}
  foreach f $flows b $acked_before { lappend got [expr [$f set ack_] - $b] }
  puts [format "{\"sim\":\"ns-2.35\",\"acked_pkts\":\[%s\],\"packet_bytes\":%d}" \
    [join $got ,] [expr [[lindex $flows 0] set packetSize_] + 40]]
  exit 0
}
proc taimd {src alpha} {
  $src set decrease_num_ 0.875
  $src set precisionReduce_ false
  $src set increase_num_ $alpha
}
proc dtaimd {src alpha} {
  taimd $src $alpha
  set trace [chan create write [list dtaimd_on_cwnd $src $alpha]]
  fconfigure $trace -buffering none
  $src attach $trace
  $src tracevar cwnd_
  dtaimd_alpha $src $alpha
}
# The channel's handler (Tcl's reflected-channel protocol): each trace line is a change of cwnd_.
proc dtaimd_on_cwnd {src alpha cmd chan args} {
  switch $cmd {
    initialize { return {initialize finalize watch write} }
    write {
      dtaimd_alpha $src $alpha
      return [string length [lindex $args 0]]
    }
  }
}
proc dtaimd_alpha {src alpha} {
  set w [expr int([$src set cwnd_])]
  set class [expr $alpha / 0.2]
  if {$w >= 8} { set a $alpha } elseif {$w <= 1} { set a $class } else {
    set a [expr $class * 3.0 / (2 * $w - 1)]
  }
  $src set increase_num_ $a
}
