# ns-2.35 counterpart of Yang et al.'s smoothness set-up (§3.3.1, Table 1; ccscope:
# ccscope.experiments.yang.smoothness_scenario): one flow over a 2.5 Mb/s, 30 ms bottleneck,
# DropTail 50 packets, 10 ms 100 Mb/s access links, whose packets are lost independently with
# probability P after they cross it (link-lossmodel: ns-lib.tcl's insert-linkloss, as ccscope's
# loss modules), 1000-byte packets.
# AGENT is Sack1 or Reno (with Agent/TCPSink[/Sack1], window_ 10000, ns-2.35 defaults otherwise;
# INCREASE and DECREASE set increase_num_ and decrease_num_: GAIMD) or TFRC (Agent/TFRC and
# Agent/TFRCSink with their ns-2.35 defaults).
# usage: ns ns2_yang_cov.tcl P SIM_S WARMUP_S BIN_S SEED AGENT [INCREASE DECREASE]
# prints one JSON line: the packets the source sent into its access link in each BIN_S bin
# from WARMUP_S to SIM_S (a queue monitor on that link: retransmissions included).
set p [lindex $argv 0]; set simt [lindex $argv 1]; set warm [lindex $argv 2]
set bin [lindex $argv 3]; set seed [lindex $argv 4]; set agent [lindex $argv 5]
if {$argc > 7} {
  Agent/TCP set increase_num_ [lindex $argv 6]
  Agent/TCP set decrease_num_ [lindex $argv 7]
}
set ns [new Simulator]
global defaultRNG
$defaultRNG seed $seed
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 10000
Agent/TFRC set packetSize_ 1000
set s [$ns node]; set L [$ns node]; set R [$ns node]; set d [$ns node]
$ns duplex-link $s $L 100Mb 10ms DropTail
$ns duplex-link $L $R 2.5Mb 30ms DropTail
$ns duplex-link $R $d 100Mb 10ms DropTail
$ns queue-limit $L $R 50
set em [new ErrorModel]
$em unit pkt
$em set rate_ $p
set u [new RandomVariable/Uniform]
$u use-rng [new RNG]
$em ranvar $u
$em drop-target [new Agent/Null]
$ns link-lossmodel $em $L $R
if {$agent == "TFRC"} {
  set src [new Agent/TFRC]; set snk [new Agent/TFRCSink]
} else {
  set src [new Agent/TCP/$agent]
  set snk [new [expr {$agent == "Sack1" ? "Agent/TCPSink/Sack1" : "Agent/TCPSink"}]]
  set ftp [new Application/FTP]; $ftp attach-agent $src
}
$ns attach-agent $s $src; $ns attach-agent $d $snk; $ns connect $src $snk
set out [$ns monitor-queue $s $L ""]
if {$agent == "TFRC"} { $ns at 0 "$src start" } else { $ns at 0 "$ftp start" }
set counts {}
set last 0
proc sample {} {
  global ns out bin counts last simt
  set now [$out set pdepartures_]
  lappend counts [expr $now - $last]
  set last $now
  if {[$ns now] + $bin < $simt + 1e-9} { $ns at [expr [$ns now] + $bin] "sample" }
}
proc start {} { global out last; set last [$out set pdepartures_]; sample_next }
proc sample_next {} { global ns bin; $ns at [expr [$ns now] + $bin] "sample" }
proc finish {} {
  global counts p
  puts [format "{\"sim\":\"ns-2.35\",\"p\":%s,\"sent_per_bin\":\[%s\]}" $p [join $counts ,]]
  exit 0
}
$ns at $warm "start"
$ns at [expr $simt + $bin / 2] "finish"
$ns run
