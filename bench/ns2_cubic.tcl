# ns-2.35 counterpart of scenarios/cubic-rfc9438.toml (RFC 9438 §5; ccscope.experiments.cubic)
# under Bernoulli loss: one Agent/TCP/Linux flow running ns-2.35's Linux 2.6.22 CUBIC module
# (tcp/linux/src/tcp_cubic.c: beta 819/1024, bic_scale 41, i.e. C = 410/1024; no HyStart),
# fast_convergence 0 (set_ca_default_param), over 1 Gb/s 1 ms access links and a 10 Gb/s,
# 48 ms link whose packets are lost independently with probability P after its queue
# (link-lossmodel, as ccscope's loss modules); 1000-byte payloads, a Sack1 sink echoing
# timestamps (the module's delay_min needs them).
# usage: ns ns2_cubic.tcl P SIM_S SEED
# prints one JSON line: the data packets sent (retransmissions included) and those sent again
# over the second half of the run, and its length (s).
set p [lindex $argv 0]; set simt [lindex $argv 1]; set seed [lindex $argv 2]
source [file join [file dirname [info script]] ns2_rng.tcl]
set ns [new Simulator]
seed_run $seed
set s [$ns node]; set L [$ns node]; set R [$ns node]; set d [$ns node]
$ns duplex-link $s $L 1Gb 1ms DropTail
$ns duplex-link $L $R 10Gb 48ms DropTail
$ns duplex-link $R $d 1Gb 1ms DropTail
foreach {a b} [list $s $L $L $R] { $ns queue-limit $a $b 100000 }
set em [new ErrorModel]
$em unit pkt
$em set rate_ $p
set u [new RandomVariable/Uniform]
$u use-rng [run_rng $seed]
$em ranvar $u
$em drop-target [new Agent/Null]
$ns link-lossmodel $em $L $R
set tcp [new Agent/TCP/Linux]
$tcp set packetSize_ 1000
$tcp set window_ 100000
$tcp set timestamps_ true
set sink [new Agent/TCPSink/Sack1]
$sink set ts_echo_rfc1323_ true
$ns attach-agent $s $tcp; $ns attach-agent $d $sink; $ns connect $tcp $sink
$ns at 0 "$tcp select_ca cubic"
$ns at 0 "$tcp set_ca_default_param cubic fast_convergence 0"
set ftp [new Application/FTP]; $ftp attach-agent $tcp
$ns at 0 "$ftp start"
proc mark {} {
  global tcp sent0 resent0
  set sent0 [$tcp set ndatapack_]; set resent0 [$tcp set nrexmitpack_]
}
proc finish {} {
  global tcp sent0 resent0 simt
  puts [format "{\"sent_pkts\":%d,\"resent_pkts\":%d,\"seconds\":%s}" \
    [expr [$tcp set ndatapack_] - $sent0] [expr [$tcp set nrexmitpack_] - $resent0] \
    [expr $simt / 2.0]]
  exit 0
}
$ns at [expr $simt / 2.0] "mark"
$ns at $simt "finish"
$ns run
