# ns-2.35 counterpart of Yang et al.'s smoothness set-up (§3.3.1, Table 1; ccscope:
# ccscope.experiments.yang.smoothness_scenario): one flow over a 2.5 Mb/s, 30 ms bottleneck,
# DropTail 50 packets, 10 ms 100 Mb/s access links, whose packets are lost independently with
# probability P after they cross it (link-lossmodel: ns-lib.tcl's insert-linkloss, as ccscope's
# loss modules), 1000-byte packets.
# AGENT and INCREASE DECREASE as bench/ns2_yang_common.tcl (Sack1 or Reno [GAIMD], or TFRC).
# usage: ns ns2_yang_cov.tcl P SIM_S WARMUP_S BIN_S SEED AGENT [INCREASE DECREASE]
# prints one JSON line: the packets the source sent into its access link in each BIN_S bin
# from WARMUP_S to SIM_S (a queue monitor on that link: retransmissions included).
set p [lindex $argv 0]; set simt [lindex $argv 1]; set warm [lindex $argv 2]
set bin [lindex $argv 3]; set seed [lindex $argv 4]
source [file join [file dirname [info script]] ns2_yang_common.tcl]
yang_setup $seed {*}[lrange $argv 5 end]
lassign [yang_path $p] s L R d
lassign [yang_flow $s $d] src app
set out [$ns monitor-queue $s $L ""]
$ns at 0 "$app start"
set counts {}
set last 0
proc start {} { global out last; set last [$out set pdepartures_]; sample_next }
proc sample_next {} { global ns bin; $ns at [expr [$ns now] + $bin] "yang_sample" }
proc finish {} {
  global counts p
  puts [format "{\"sim\":\"ns-2.35\",\"p\":%s,\"sent_per_bin\":\[%s\]}" $p [join $counts ,]]
  exit 0
}
$ns at $warm "start"
$ns at [expr $simt + $bin / 2] "finish"
$ns run
