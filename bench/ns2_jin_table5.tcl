# ns-2.35 counterpart of Jin et al.'s Table 5 square wave (§6.2.4; ccscope:
# scenarios/jin-table5-square-wave.toml): one flow of AGENT from s over a 1 Gb/s, 1 ms link to
# L, L-R 1.5 Mb/s 48 ms RED (ns-2.35's automatic thresholds and weight, gentle, limit 60,
# counted in packets with mean_pktsize_ 1000, as ccscope's), R to its sink over 1 Gb/s, 1 ms;
# beside it a CBR square wave over UDP from its own host, 750 kb/s of 1000-byte packets, ON
# for 30 s from 0, OFF for 30 s, repeating. The flow starts at a uniform time in [0, 1) s;
# packetSize_ 1000, window_ 10000, ns-2.35 defaults otherwise.
# AGENT: Newreno (TCP; the paper's footnote 8: NewReno loss detection), or Newreno with
# INCREASE DECREASE (increase_num_/decrease_num_: AIMD), or Newreno with INCREASE DECREASE K L
# (windowOption_ 6, ns-2's binomial controls: w += a/w^k per RTT, w -= (1 - decrease_num_)
# w^l).
# usage: ns ns2_jin_table5.tcl SIM_S SEED AGENT [INCREASE DECREASE [K L]]
# prints one JSON line: the flow's cwnd_ every 100 ms from 0.1 s.
set simt [lindex $argv 0]; set seed [lindex $argv 1]; set agent [lindex $argv 2]
if {$argc > 4} {
  Agent/TCP set increase_num_ [lindex $argv 3]
  Agent/TCP set decrease_num_ [lindex $argv 4]
}
if {$argc > 6} {
  Agent/TCP set windowOption_ 6
  Agent/TCP set k_parameter_ [lindex $argv 5]
  Agent/TCP set l_parameter_ [lindex $argv 6]
}
source [file join [file dirname [info script]] ns2_rng.tcl]
set ns [new Simulator]
seed_run $seed
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 10000
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set mean_pktsize_ 1000
foreach n {s c L R d e} { set $n [$ns node] }
$ns duplex-link $s $L 1000Mb 1ms DropTail
$ns duplex-link $c $L 1000Mb 1ms DropTail
$ns duplex-link $L $R 1.5Mb 48ms RED
$ns queue-limit $L $R 60
$ns queue-limit $R $L 60
$ns duplex-link $R $d 1000Mb 1ms DropTail
$ns duplex-link $R $e 1000Mb 1ms DropTail
set src [new Agent/TCP/$agent]; set snk [new Agent/TCPSink]
$ns attach-agent $s $src; $ns attach-agent $d $snk; $ns connect $src $snk
set ftp [new Application/FTP]; $ftp attach-agent $src
set u [new RandomVariable/Uniform]; $u set min_ 0; $u set max_ 1
$ns at [$u value] "$ftp start"
set udp [new Agent/UDP]; set null [new Agent/Null]
$ns attach-agent $c $udp; $ns attach-agent $e $null; $ns connect $udp $null
set cbr [new Application/Traffic/CBR]; $cbr attach-agent $udp
$cbr set packetSize_ 1000
$cbr set rate_ 750Kb
for {set t 0} {$t < $simt} {set t [expr $t + 60]} {
  $ns at $t "$cbr start"
  $ns at [expr $t + 30] "$cbr stop"
}
set rows {}
proc sample {} {
  global ns src rows simt
  lappend rows [$src set cwnd_]
  if {[$ns now] + 0.1 < $simt + 1e-9} { $ns at [expr [$ns now] + 0.1] "sample" }
}
proc finish {} {
  global rows
  puts [format "{\"sim\":\"ns-2.35\",\"interval_s\":0.1,\"cwnd\":\[%s\]}" [join $rows ,]]
  exit 0
}
$ns at 0.1 "sample"
$ns at [expr $simt + 0.05] "finish"
$ns run
