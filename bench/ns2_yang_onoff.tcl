# ns-2.35 counterpart of scenarios/yang-onoff-loss.toml (Yang, Kim & Lam 2003 §3.3, the ON/OFF
# loss model; ccscope.experiments.yang.onoff): one flow over a 2.5 Mb/s, 30 ms bottleneck,
# DropTail 50 packets, beside five Pareto ON/OFF sources (Application/Traffic/Pareto over UDP,
# pareto.cc: mean ON 1 s, mean OFF 2 s, 500 kb/s while ON, shape 1.5, 1000-byte packets), every
# flow on its own 100 Mb/s, 10 ms access links; 1000-byte payloads.
# AGENT and INCREASE DECREASE as bench/ns2_yang_common.tcl (Sack1 [GAIMD] or TFRC).
# usage: ns ns2_yang_onoff.tcl SIM_S WARMUP_S BIN_S SEED AGENT [INCREASE DECREASE]
# prints one JSON line: the packets the flow sent into its access link in each BIN_S bin from
# WARMUP_S to SIM_S (retransmissions included), and the share of its packets the bottleneck
# dropped over that time (a flow monitor on the bottleneck, the flow's fid 1).
set simt [lindex $argv 0]; set warm [lindex $argv 1]; set bin [lindex $argv 2]
set seed [lindex $argv 3]
source [file join [file dirname [info script]] ns2_yang_common.tcl]
yang_setup $seed {*}[lrange $argv 4 end]
set L [$ns node]; set R [$ns node]
$ns duplex-link $L $R 2.5Mb 30ms DropTail
$ns queue-limit $L $R 50
proc host {} {
  global ns L R
  set s [$ns node]; set d [$ns node]
  $ns duplex-link $s $L 100Mb 10ms DropTail
  $ns duplex-link $R $d 100Mb 10ms DropTail
  return [list $s $d]
}
lassign [host] s d
lassign [yang_flow $s $d] src app
$src set fid_ 1
for {set i 0} {$i < 5} {incr i} {
  lassign [host] us ud
  set udp [new Agent/UDP]; $udp set fid_ 2; $udp set packetSize_ 1000
  set null [new Agent/Null]
  $ns attach-agent $us $udp; $ns attach-agent $ud $null; $ns connect $udp $null
  set onoff [new Application/Traffic/Pareto]
  $onoff set burst_time_ 1s; $onoff set idle_time_ 2s; $onoff set rate_ 500k
  $onoff set shape_ 1.5; $onoff set packetSize_ 1000
  $onoff attach-agent $udp
  $ns at 0 "$onoff start"
}
set out [$ns monitor-queue $s $L ""]
set fmon [$ns makeflowmon Fid]
$ns attach-fmon [$ns link $L $R] $fmon
$ns at 0 "$app start"
set counts {}
set last 0
proc start {} {
  global ns out last bin fmon flow arrived0 dropped0
  set last [$out set pdepartures_]
  set flow [[$fmon classifier] lookup auto 0 0 1]
  set arrived0 [$flow set parrivals_]; set dropped0 [$flow set pdrops_]
  $ns at [expr [$ns now] + $bin] "yang_sample"
}
proc finish {} {
  global counts flow arrived0 dropped0
  set arrived [expr [$flow set parrivals_] - $arrived0]
  set dropped [expr [$flow set pdrops_] - $dropped0]
  puts [format "{\"sim\":\"ns-2.35\",\"loss_rate\":%.6f,\"sent_per_bin\":\[%s\]}" \
    [expr double($dropped) / $arrived] [join $counts ,]]
  exit 0
}
$ns at $warm "start"
$ns at [expr $simt + $bin / 2] "finish"
$ns run
