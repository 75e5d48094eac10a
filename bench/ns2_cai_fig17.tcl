# ns-2.35 counterpart of Cai et al.'s Fig. 17 (§IV-C, §V-B3; ccscope:
# scenarios/cai-fig17-differentiation.toml, cai.fig17_ratio): DATA Sack1 flows (TCP, class 1)
# and MEDIA flows of DTAIMD(ALPHA2, 0.875) (class 2) from their own hosts over 1 Gb/s access
# links of 2 ms (class 1) and 3 ms (class 2) to L, L-R 15 Mb/s 20 ms RED (ns-2.35's automatic
# thresholds and weight, gentle, limit 300, counted in packets with mean_pktsize_ 1000, as
# ccscope's), R to each sink over 1 Gb/s, 1 ms. Every flow starts at a uniform time in
# [0, 2) s; packetSize_ 1000, window_ 10000, ns-2.35 defaults otherwise. A class-2 flow is
# Sack1 with bench/ns2_cai_dtaimd.tcl's DTAIMD (ns-2.35 has no DTAIMD agent).
# usage: ns ns2_cai_fig17.tcl DATA MEDIA ALPHA2 SIM_S WARMUP_S SEED
# prints one JSON line: each flow's packets acknowledged (ack_) between WARMUP_S and SIM_S,
# class 1 first, and the packet size on the wire.
set data [lindex $argv 0]; set media [lindex $argv 1]; set alpha2 [lindex $argv 2]
set simt [lindex $argv 3]; set warm [lindex $argv 4]; set seed [lindex $argv 5]
set ns [new Simulator]
source [file join [file dirname [info script]] ns2_cai_dtaimd.tcl]
global defaultRNG
$defaultRNG seed $seed
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 10000
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set mean_pktsize_ 1000
set L [$ns node]; set R [$ns node]
$ns duplex-link $L $R 15Mb 20ms RED
$ns queue-limit $L $R 300
$ns queue-limit $R $L 300
set u [new RandomVariable/Uniform]; $u set min_ 0; $u set max_ 2
set flows {}
proc flow {delay} {
  global ns L R u flows
  set s [$ns node]; set d [$ns node]
  $ns duplex-link $s $L 1000Mb $delay DropTail
  $ns duplex-link $R $d 1000Mb 1ms DropTail
  $ns queue-limit $s $L 10000
  set src [new Agent/TCP/Sack1]; set snk [new Agent/TCPSink/Sack1]
  $ns attach-agent $s $src; $ns attach-agent $d $snk; $ns connect $src $snk
  set ftp [new Application/FTP]; $ftp attach-agent $src
  $ns at [$u value] "$ftp start"
  lappend flows $src
  return $src
}
for {set i 0} {$i < $data} {incr i} { flow 2ms }
for {set i 0} {$i < $media} {incr i} {
  dtaimd [flow 3ms] $alpha2
}
set before {}
proc mark {} {
  global flows before
  foreach f $flows { lappend before [$f set ack_] }
}
proc finish {} {
  global flows before
  set got {}
  foreach f $flows b $before { lappend got [expr [$f set ack_] - $b] }
  puts [format "{\"sim\":\"ns-2.35\",\"acked_pkts\":\[%s\],\"packet_bytes\":%d}" \
    [join $got ,] [expr [[lindex $flows 0] set packetSize_] + 40]]
  exit 0
}
$ns at $warm "mark"
$ns at $simt "finish"
$ns run
