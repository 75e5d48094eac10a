# ns-2.35 run of Yang et al.'s smoothness set-up (bench/ns2_yang_cov.tcl's: one flow over a
# 2.5 Mb/s, 30 ms bottleneck, DropTail 50, 10 ms 100 Mb/s access links, Bernoulli loss P after
# the bottleneck's queue by link-lossmodel) traced for bench/ns2_compare_trace.py.
# AGENT and INCREASE DECREASE as bench/ns2_yang_common.tcl.
# usage: ns ns2_yang_trace.tcl P SIM_S SEED DIR AGENT [INCREASE DECREASE]
# writes in DIR: sends.tr (the queue trace of the source's access link), bottleneck.tr (of the
# bottleneck's forward queue) and lost.txt: the indices (from 0, in the order packets reach the
# error model) of the packets the error model drops, found by replaying its own random stream
# from its start (one uniform per packet, lost below P: errmodel.cc, unit pkt).
set p [lindex $argv 0]; set simt [lindex $argv 1]; set seed [lindex $argv 2]
set dir [lindex $argv 3]
source [file join [file dirname [info script]] ns2_yang_common.tcl]
yang_setup $seed {*}[lrange $argv 4 end]
lassign [yang_path $p] s L R d rng u
lassign [yang_flow $s $d] src app
set sends [open $dir/sends.tr w]
$ns trace-queue $s $L $sends
set bottleneck [open $dir/bottleneck.tr w]
$ns trace-queue $L $R $bottleneck
$ns at 0 "$app start"
proc finish {} {
  global rng u p dir sends bottleneck
  close $sends; close $bottleneck
  $rng reset-start-substream
  set lost {}
  # More draws than packets: the trace says how many the run used.
  for {set i 0} {$i < 400000} {incr i} { if {[$u value] < $p} { lappend lost $i } }
  set f [open $dir/lost.txt w]; puts $f [join $lost " "]; close $f
  exit 0
}
$ns at $simt "finish"
$ns run
