# ns-2.35 counterpart of Yang et al.'s short-term fairness set-up (§3.3.2, Figs. 10 and 13,
# Table 1's F; ccscope: ccscope.experiments.yang.fairness_scenario): N flows of one protocol
# share a 2.5 Mb/s, 30 ms bottleneck, DropTail 50 packets, each from its own 100 Mb/s, 10 ms
# access link to a sink behind a 100 Mb/s, 10 ms link; no loss module; 1000-byte packets; the
# flows start at uniform times in [0, 2) s.
# AGENT and INCREASE DECREASE as bench/ns2_yang_common.tcl (Sack1 or Reno [GAIMD], or TFRC).
# usage: ns ns2_yang_fairness.tcl N SIM_S WARMUP_S BIN_S SEED AGENT [INCREASE DECREASE]
# prints one JSON line: per flow, the packets it sent into its access link in each BIN_S bin
# from WARMUP_S to SIM_S (retransmissions included), and the bottleneck queue's mean length in
# bytes over the same time.
set n [lindex $argv 0]; set simt [lindex $argv 1]; set warm [lindex $argv 2]
set bin [lindex $argv 3]; set seed [lindex $argv 4]
source [file join [file dirname [info script]] ns2_yang_common.tcl]
yang_setup $seed {*}[lrange $argv 5 end]
set L [$ns node]; set R [$ns node]; set d [$ns node]
$ns duplex-link $L $R 2.5Mb 30ms DropTail
$ns duplex-link $R $d 100Mb 10ms DropTail
$ns queue-limit $L $R 50
set bq [$ns monitor-queue $L $R ""]
set starts [new RandomVariable/Uniform]
$starts set min_ 0; $starts set max_ 2
for {set i 0} {$i < $n} {incr i} {
  set s [$ns node]
  $ns duplex-link $s $L 100Mb 10ms DropTail
  lassign [yang_flow $s $d] src($i) app($i)
  set out($i) [$ns monitor-queue $s $L ""]
  set last($i) 0; set counts($i) {}
  $ns at [$starts value] "$app($i) start"
}
proc sample {} {
  global ns out bin counts last simt n
  for {set i 0} {$i < $n} {incr i} {
    set now [$out($i) set pdepartures_]
    lappend counts($i) [expr $now - $last($i)]
    set last($i) $now
  }
  if {[$ns now] + $bin < $simt + 1e-9} { $ns at [expr [$ns now] + $bin] "sample" }
}
proc start {} {
  global ns out last n bin bq
  for {set i 0} {$i < $n} {incr i} { set last($i) [$out($i) set pdepartures_] }
  [$bq get-bytes-integrator] reset
  set ::t0 [$ns now]
  $ns at [expr [$ns now] + $bin] "sample"
}
proc finish {} {
  global ns counts n bq
  set rows {}
  for {set i 0} {$i < $n} {incr i} { lappend rows "\[[join $counts($i) ,]\]" }
  set q [expr [[$bq get-bytes-integrator] set sum_] / ([$ns now] - $::t0)]
  puts [format "{\"sim\":\"ns-2.35\",\"mean_queue_bytes\":%s,\"sent_per_bin\":\[%s\]}" $q [join $rows ,]]
  exit 0
}
$ns at $warm "start"
$ns at [expr $simt + $bin / 2] "finish"
$ns run
