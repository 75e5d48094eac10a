# ns-2.35 counterpart of Cai et al.'s Table I (§V-B2; ccscope: scenarios/cai-table1-playback.toml,
# whose comment gives what is assumed): one DTAIMD(0.2, 0.875) flow (Sack1 with
# bench/ns2_cai_common.tcl) over a 100 Mb/s access link of 3 ms and ten Sack1 elephants over
# 1, 1, 2, 2, 3, 3, 4, 4, 5, 5 ms, all from 0 s, and MICE Sack1 mice over 1 ms, each starting
# at a uniform time in [0, SIM_S) and stopping after an exponential lifetime of mean 5 s, each
# flow from its own host to L; L-R 10 Mb/s 20 ms RED (ns-2.35's automatic thresholds and
# weight, gentle, limit 200); R to each sink over 100 Mb/s, 1 ms. ns-2.35 defaults otherwise
# (the set-up's: bench/ns2_cai_common.tcl).
# ns-2.35 has no playback receiver: the script logs what each of the eleven flows has
# delivered, its sender's ack_ every 10 ms, and the bench replays ccscope's playback model on
# it.
# usage: ns ns2_cai_table1.tcl MICE SIM_S SEED
# prints one JSON line: the eleven flows' ack_ (packets delivered in order, -1 before the
# first) every 10 ms from 0.01 s, DTAIMD first, and the packet size on the wire.
set mice [lindex $argv 0]; set simt [lindex $argv 1]; set seed [lindex $argv 2]
source [file join [file dirname [info script]] ns2_cai_common.tcl]
cai_start $seed
set L [$ns node]; set R [$ns node]
$ns duplex-link $L $R 10Mb 20ms RED
$ns queue-limit $L $R 200
$ns queue-limit $R $L 200
set played {}
foreach delay {3ms 1ms 1ms 2ms 2ms 3ms 3ms 4ms 4ms 5ms 5ms} {
  lassign [sack_flow $L $R 100Mb $delay] src ftp
  if {$played == {}} { dtaimd $src 0.2 }
  lappend played $src
  $ns at 0 "$ftp start"
}
set when [new RandomVariable/Uniform]; $when set min_ 0; $when set max_ $simt
set life [new RandomVariable/Exponential]; $life set avg_ 5
for {set i 0} {$i < $mice} {incr i} {
  lassign [sack_flow $L $R 100Mb 1ms] src ftp
  set t [$when value]
  $ns at $t "$ftp start"
  $ns at [expr $t + [$life value]] "$ftp stop"
}
set rows {}
proc sample {} {
  global ns played rows simt
  set row {}
  foreach f $played { lappend row [$f set ack_] }
  lappend rows "\[[join $row ,]\]"
  if {[$ns now] + 0.01 < $simt + 1e-9} { $ns at [expr [$ns now] + 0.01] "sample" }
}
proc finish {} {
  global rows played
  puts [format "{\"sim\":\"ns-2.35\",\"interval_s\":0.01,\"ack\":\[%s\],\"packet_bytes\":%d}" \
    [join $rows ,] [expr [[lindex $played 0] set packetSize_] + 40]]
  exit 0
}
$ns at 0.01 "sample"
$ns at [expr $simt + 0.005] "finish"
$ns run
