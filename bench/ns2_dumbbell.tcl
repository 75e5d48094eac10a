# ns-2.35 counterpart of the speed benchmark (bench/speed.py) and of bench/anchors.py: N
# TCP/Sack1 bulk flows from N hosts to N hosts across one bottleneck, 1000-byte packets,
# access links 1 Gb/s 1 ms, flows started uniformly in [0, 1] s.
# Queue: DropTail holding the bandwidth-delay product (BW x 2 (DELAY + 2 ms) / 8000 B), or gentle
# RED (ns-2's automatic thresholds) with a 1.5 x BDP buffer.
# usage: ns ns2_dumbbell.tcl N BW_MBPS DELAY_MS DropTail|RED SIM_S SEED
# prints one JSON line: per-flow goodput (cumulative ACKs x 1000 B over SIM_S), their sum and
# Jain index, and the bottleneck queue monitor's arrivals, drops and departures (packets).
set n [lindex $argv 0]; set bw [lindex $argv 1]; set dly [lindex $argv 2]
set qkind [lindex $argv 3]; set simt [lindex $argv 4]; set seed [lindex $argv 5]
source [file join [file dirname [info script]] ns2_rng.tcl]
set ns [new Simulator]
seed_run $seed
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 10000
Queue/RED set gentle_ true
Queue/RED set thresh_ 0
Queue/RED set maxthresh_ 0
set bdp [expr int($bw * 1e6 * 2.0 * ($dly + 2) / 1000.0 / 8000.0)]
set L [$ns node]; set R [$ns node]
$ns duplex-link $L $R ${bw}Mb ${dly}ms $qkind
if {$qkind == "RED"} {
  $ns queue-limit $L $R [expr int(1.5 * $bdp)]
} else {
  $ns queue-limit $L $R $bdp
}
set starts [run_rng $seed]
for {set i 0} {$i < $n} {incr i} {
  set src [$ns node]; set dst [$ns node]
  $ns duplex-link $src $L 1000Mb 1ms DropTail
  $ns duplex-link $R $dst 1000Mb 1ms DropTail
  set tcp($i) [new Agent/TCP/Sack1]
  set sink [new Agent/TCPSink/Sack1]
  $ns attach-agent $src $tcp($i); $ns attach-agent $dst $sink; $ns connect $tcp($i) $sink
  set ftp [new Application/FTP]; $ftp attach-agent $tcp($i)
  $ns at [$starts uniform 0 1] "$ftp start"
}
set mon [$ns monitor-queue $L $R ""]
proc finish {} {
  global n tcp mon simt
  set sum 0.0; set squares 0.0; set each {}
  for {set i 0} {$i < $n} {incr i} {
    set g [expr [$tcp($i) set ack_] * 8000.0 / $simt / 1e6]
    set sum [expr $sum + $g]; set squares [expr $squares + $g * $g]
    lappend each [format "%.4f" $g]
  }
  set jain [expr {$squares > 0 ? $sum * $sum / ($n * $squares) : 0.0}]
  puts [format "{\"goodputMbps\":\[%s\],\"sumGoodputMbps\":%.4f,\"jain\":%.4f,\"arrivals\":%d,\"drops\":%d,\"departures\":%d}" \
    [join $each ","] $sum $jain [$mon set parrivals_] [$mon set pdrops_] [$mon set pdepartures_]]
  exit 0
}
$ns at $simt "finish"
$ns run
