# ns-2.35 counterpart of the TFRC loss-event comparison (tests/validation/test_ns2_tfrc_loss.py):
# one Agent/TFRC + Agent/TFRCSink flow (ns-2.35 defaults: PreciseLoss_ 1, numPkts_ 1) over a
# 10 Mb/s, 50 ms link whose packets are lost independently with probability P (ErrorModel,
# uniform), 1000-byte packets, 1 Gb/s 1 ms access links.
# usage: ns ns2_tfrc_loss.tcl P SIM_S WARMUP_S SEED
# prints one JSON line: the flow's Mb/s delivered to the sink over [WARMUP_S, SIM_S] and the
# packets delivered. ns-2.35's Agent/TFRC adds a 32-byte header to each 1000-byte packet
# (useHeaders_ true, headersize_ 32): the Mb/s count 1032 bytes a packet.
set p [lindex $argv 0]; set simt [lindex $argv 1]; set warm [lindex $argv 2]
set seed [lindex $argv 3]
source [file join [file dirname [info script]] ns2_rng.tcl]
set ns [new Simulator]
seed_run $seed
Agent/TFRC set packetSize_ 1000
set s [$ns node]; set L [$ns node]; set R [$ns node]; set d [$ns node]
$ns duplex-link $s $L 1000Mb 1ms DropTail
$ns duplex-link $L $R 10Mb 50ms DropTail
$ns duplex-link $R $d 1000Mb 1ms DropTail
$ns queue-limit $L $R 1000
set em [new ErrorModel]
$em unit pkt
$em set rate_ $p
set u [new RandomVariable/Uniform]
$u use-rng [run_rng $seed]
$em ranvar $u
$em drop-target [new Agent/Null]
$ns lossmodel $em $L $R
set src [new Agent/TFRC]; set snk [new Agent/TFRCSink]
$ns attach-agent $s $src; $ns attach-agent $d $snk; $ns connect $src $snk
set out [$ns monitor-queue $R $d ""]
$ns at 0 "$src start"
proc mark {} { global out b0 k0; set b0 [$out set bdepartures_]; set k0 [$out set pdepartures_] }
proc finish {} {
  global out b0 k0 simt warm p
  puts [format "{\"sim\":\"ns-2.35\",\"p\":%s,\"mbps\":%.5f,\"packets\":%d}" $p \
    [expr ([$out set bdepartures_] - $b0) * 8.0 / ($simt - $warm) / 1e6] \
    [expr [$out set pdepartures_] - $k0]]
  exit 0
}
$ns at $warm "mark"
$ns at $simt "finish"
$ns run
