# ns-2.35 counterpart of Cai et al.'s Fig. 16 access bottleneck (§V-B1; ccscope:
# scenarios/cai-fig16-access.toml, whose comment gives what is assumed where the paper is
# silent): s0 and e0 reach r1 over 100 Mb/s, 1 ms links; r1-r2 10 Mb/s, 20 ms, RED with ns-2's
# automatic thresholds and weight, limit 200, counted in packets (mean_pktsize_ 1000, as
# ccscope's); r2-e1 100 Mb/s, 1 ms; r2-d0 the 56 kb/s, 5 ms access line, DropTail QUEUE packets.
# The media flow s0 -> d0 (packetSize_ 100) runs AGENT: TCP (Agent/TCP/Sack1) or DTAIMD
# (Sack1 as bench/ns2_cai_common.tcl's `dtaimd` makes it, AIMD(0.2, 0.875); that file also
# sets the defaults below). Ten Sack1 elephants e0 -> e1 start at uniform times in [0, 1) s; MICE Sack1 mice
# s0 -> d0 (packetSize_ 1000) start at uniform times in [0, SIM_S) and stop after
# exponential lifetimes of mean 5 s. window_ 10000, ns-2.35 defaults otherwise. START "syn"
# (the default) keeps ns-2.35's connection start (syn_ and delay_growth_ true, tcp.cc: a
# 40-byte SYN first, cwnd_ 1 until its ACK, then windowInit_); "data" starts every agent as
# ccscope's TCP does, windowInit_ packets of data at once (syn_ and delay_growth_ false).
# usage: ns ns2_cai_fig16.tcl AGENT MICE QUEUE SIM_S SEED [START]
# prints one JSON line: the packets of the media flow acknowledged (ack_ + 1) and its packet
# size on the wire.
set agent [lindex $argv 0]; set mice [lindex $argv 1]; set qlim [lindex $argv 2]
set simt [lindex $argv 3]; set seed [lindex $argv 4]
set start [expr {[llength $argv] > 5 ? [lindex $argv 5] : "syn"}]
source [file join [file dirname [info script]] ns2_cai_common.tcl]
cai_start $seed
if {$start == "data"} {
  Agent/TCP set syn_ false
  Agent/TCP set delay_growth_ false
} elseif {$start != "syn"} {
  puts stderr "START = $start: must be syn or data"; exit 2
}
foreach n {s0 r1 r2 d0 e0 e1} { set $n [$ns node] }
$ns duplex-link $s0 $r1 100Mb 1ms DropTail
$ns duplex-link $e0 $r1 100Mb 1ms DropTail
$ns duplex-link $r1 $r2 10Mb 20ms RED
$ns queue-limit $r1 $r2 200
$ns queue-limit $r2 $r1 200
$ns duplex-link $r2 $e1 100Mb 1ms DropTail
$ns duplex-link $r2 $d0 56Kb 5ms DropTail
$ns queue-limit $r2 $d0 $qlim
$ns queue-limit $d0 $r2 $qlim
proc tcp {from to} {
  global ns
  set src [new Agent/TCP/Sack1]; set snk [new Agent/TCPSink/Sack1]
  $ns attach-agent $from $src; $ns attach-agent $to $snk; $ns connect $src $snk
  set ftp [new Application/FTP]; $ftp attach-agent $src
  return [list $src $ftp]
}
lassign [tcp $s0 $d0] media mftp
$media set packetSize_ 100
if {$agent == "DTAIMD"} { dtaimd $media 0.2 }
$ns at 0 "$mftp start"
set u [new RandomVariable/Uniform]; $u set min_ 0; $u set max_ 1
for {set i 0} {$i < 10} {incr i} {
  lassign [tcp $e0 $e1] src ftp
  $ns at [$u value] "$ftp start"
}
set when [new RandomVariable/Uniform]; $when set min_ 0; $when set max_ $simt
set life [new RandomVariable/Exponential]; $life set avg_ 5
for {set i 0} {$i < $mice} {incr i} {
  lassign [tcp $s0 $d0] src ftp
  set t [$when value]
  $ns at $t "$ftp start"
  $ns at [expr $t + [$life value]] "$ftp stop"
}
proc finish {} {
  global media
  puts [format "{\"sim\":\"ns-2.35\",\"acked_pkts\":%d,\"packet_bytes\":%d}" \
    [expr [$media set ack_] + 1] [expr [$media set packetSize_] + 40]]
  exit 0
}
$ns at $simt "finish"
$ns run
