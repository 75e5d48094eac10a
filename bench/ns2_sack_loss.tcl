# ns-2.35 counterpart of the TCP loss-recovery comparisons (tests/validation/test_ns2_sack_loss.py,
# bench/ns2_compare_tcp.py): N bulk flows of AGENT (Sack1, the default, or Reno; window_ 10000,
# 1000-byte packets, ns-2.35 defaults otherwise) over a 100 Mb/s, 20 ms link whose packets are
# lost independently with probability P (ErrorModel after the queue, as ccscope's loss
# modules), 1 Gb/s 1 ms access links. INCREASE and DECREASE set increase_num_ and
# decrease_num_ (GAIMD: the per-RTT increase and the fraction of the window kept).
# usage: ns ns2_sack_loss.tcl N P SIM_S SEED [AGENT [INCREASE DECREASE]]
# prints one JSON line: data packets sent (retransmissions included), retransmitted packets,
# retransmission timeouts and packets cumulatively acknowledged, summed over the flows and the
# whole run; every data packet crosses the lossy link, so p times the packets sent is the
# expected number lost.
set n [lindex $argv 0]; set p [lindex $argv 1]; set simt [lindex $argv 2]
set seed [lindex $argv 3]
set agent [expr {$argc > 4 ? [lindex $argv 4] : "Sack1"}]
if {$argc > 6} {
  Agent/TCP set increase_num_ [lindex $argv 5]
  Agent/TCP set decrease_num_ [lindex $argv 6]
}
set sink [expr {$agent == "Sack1" ? "Agent/TCPSink/Sack1" : "Agent/TCPSink"}]
source [file join [file dirname [info script]] ns2_rng.tcl]
set ns [new Simulator]
seed_run $seed
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 10000
set L [$ns node]; set R [$ns node]
$ns duplex-link $L $R 100Mb 20ms DropTail
$ns queue-limit $L $R 100000
set em [new ErrorModel]
$em unit pkt
$em set rate_ $p
set u [new RandomVariable/Uniform]
$u use-rng [run_rng $seed]
$em ranvar $u
$em drop-target [new Agent/Null]
$ns lossmodel $em $L $R
for {set i 0} {$i < $n} {incr i} {
  set s($i) [$ns node]; set d($i) [$ns node]
  $ns duplex-link $s($i) $L 1000Mb 1ms DropTail
  $ns duplex-link $R $d($i) 1000Mb 1ms DropTail
  set src($i) [new Agent/TCP/$agent]; set snk($i) [new $sink]
  set ftp($i) [new Application/FTP]; $ftp($i) attach-agent $src($i)
  $ns attach-agent $s($i) $src($i); $ns attach-agent $d($i) $snk($i)
  $ns connect $src($i) $snk($i)
  $ns at [expr 0.01 * $i] "$ftp($i) start"
}
proc finish {} {
  global n src p
  set sent 0; set rx 0; set to 0; set acked 0
  for {set i 0} {$i < $n} {incr i} {
    incr sent [$src($i) set ndatapack_]
    incr rx [$src($i) set nrexmitpack_]
    incr to [$src($i) set nrexmit_]
    incr acked [expr [$src($i) set ack_] + 1]
  }
  puts [format "{\"sim\":\"ns-2.35\",\"p\":%s,\"sent\":%d,\"retransmits\":%d,\"timeouts\":%d,\"acked\":%d}" $p $sent $rx $to $acked]
  exit 0
}
$ns at $simt "finish"
$ns run
