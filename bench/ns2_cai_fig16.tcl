# ns-2.35 counterpart of Cai et al.'s Fig. 16 access bottleneck (§V-B1; ccscope:
# scenarios/cai-fig16-access.toml, whose comment gives what is assumed where the paper is
# silent): s0 and e0 reach r1 over 100 Mb/s, 1 ms links; r1-r2 10 Mb/s, 20 ms, RED with ns-2's
# automatic thresholds and weight, limit 200, counted in packets (mean_pktsize_ 1000, as
# ccscope's); r2-e1 100 Mb/s, 1 ms; r2-d0 the 56 kb/s, 5 ms access line, DropTail QUEUE packets.
# The media flow s0 -> d0 (packetSize_ 100) runs AGENT: TCP (Agent/TCP/Sack1) or DTAIMD
# (Sack1, decrease_num_ 0.875 with precisionReduce_ false, so that a cut keeps
# int(0.875 int(cwnd)) packets, at least one fewer; and increase_num_ set every 10 ms from
# cwnd_ by Cai et al.'s L1-L6: 0.2 at 8 packets or more, 1 at one, 3/(2w - 1) between, w the
# whole packets of cwnd_; ns-2.35 has no DTAIMD agent and the timer is much shorter than the
# line's RTT). Ten Sack1 elephants e0 -> e1 start at uniform times in [0, 1) s; MICE Sack1 mice
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
set ns [new Simulator]
global defaultRNG
$defaultRNG seed $seed
Agent/TCP set window_ 10000
Agent/TCP set packetSize_ 1000
if {$start == "data"} {
  Agent/TCP set syn_ false
  Agent/TCP set delay_growth_ false
} elseif {$start != "syn"} {
  puts stderr "START = $start: must be syn or data"; exit 2
}
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set mean_pktsize_ 1000
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
if {$agent == "DTAIMD"} {
  $media set decrease_num_ 0.875
  $media set precisionReduce_ false
  proc alpha {} {
    global ns media
    set w [expr int([$media set cwnd_])]
    if {$w >= 8} { set a 0.2 } elseif {$w <= 1} { set a 1.0 } else { set a [expr 3.0 / (2 * $w - 1)] }
    $media set increase_num_ $a
    $ns at [expr [$ns now] + 0.01] "alpha"
  }
  $ns at 0 "alpha"
}
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
