# ns-2.35 counterpart of scenarios/tfrc-tcp-red.toml: N Agent/TFRC +
# Agent/TFRCSink flows and N TCP/Sack1 bulk flows on a gentle-RED dumbbell, 1000-byte packets,
# 1 Gb/s 1 ms access links, flows started uniformly in [0, 1] s. bench/ns2_rap.tcl runs it with
# Agent/RAP in place of TFRC (variable `agent`).
# usage: ns ns2_tfrc.tcl N BW_MBPS DELAY_MS SIM_S WARMUP_S SEED [IPG_TRACE]
# With IPG_TRACE (RAP only) every change of each RAP source's ipg_ goes to that file (ns-2's
# agent trace: "f -t TIME -s ADDR ... -n ipg_ ... -v NEW -o OLD -T v"), from which the bench
# counts back-offs (the gap grows).
# prints one JSON line: per-flow Mb/s over [WARMUP_S, SIM_S] (TFRC: bytes delivered to the sink,
# 1032 a packet with ns-2's header; TCP: cumulative ACKs x 1000 B), per-flow packets delivered,
# bottleneck arrivals and drops (packets) and departed bytes over the same window.
set n [lindex $argv 0]; set bw [lindex $argv 1]; set dly [lindex $argv 2]
set simt [lindex $argv 3]; set warm [lindex $argv 4]; set seed [lindex $argv 5]
set ipgtrace [lindex $argv 6]
if {![info exists agent]} { set agent TFRC }
source [file join [file dirname [info script]] ns2_rng.tcl]
set ns [new Simulator]
seed_run $seed
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 10000
Agent/TFRC set packetSize_ 1000
Agent/RAP set packetSize_ 1000
# RED as in the scenario: packet mode (ns-2.35 defaults to byte mode), min_th 10, max_th 30
# packets, max_p 0.1 (linterm_ = 1/max_p), w_q 0.002.
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set gentle_ true
Queue/RED set thresh_ 10
Queue/RED set maxthresh_ 30
Queue/RED set linterm_ 10
Queue/RED set q_weight_ 0.002
set L [$ns node]; set R [$ns node]
$ns duplex-link $L $R ${bw}Mb ${dly}ms RED
$ns queue-limit $L $R 100
set rng [run_rng $seed]
for {set i 0} {$i < 2*$n} {incr i} {
  set s($i) [$ns node]; set d($i) [$ns node]
  $ns duplex-link $s($i) $L 1000Mb 1ms DropTail
  $ns duplex-link $R $d($i) 1000Mb 1ms DropTail
  if {$i < $n} {
    if {$agent == "RAP"} {
      # rap.cc: the sink is an Agent/RAP that listens.
      set src($i) [new Agent/RAP]; set snk($i) [new Agent/RAP]; $ns at 0 "$snk($i) listen"
      if {$ipgtrace != ""} {
        if {![info exists tf]} { set tf [open $ipgtrace w] }
        $src($i) attach $tf; $src($i) trace ipg_
      }
    } else {
      set src($i) [new Agent/TFRC]; set snk($i) [new Agent/TFRCSink]
    }
  } else {
    set src($i) [new Agent/TCP/Sack1]; set snk($i) [new Agent/TCPSink/Sack1]
    set ftp($i) [new Application/FTP]; $ftp($i) attach-agent $src($i)
  }
  $ns attach-agent $s($i) $src($i); $ns attach-agent $d($i) $snk($i); $ns connect $src($i) $snk($i)
  set out($i) [$ns monitor-queue $R $d($i) ""]
  set t [$rng uniform 0 1]
  if {$i < $n} { $ns at $t "$src($i) start" } else { $ns at $t "$ftp($i) start" }
}
set mon [$ns monitor-queue $L $R ""]
proc delivered {i} {
  global n out src
  if {$i < $n} { return [$out($i) set bdepartures_] }
  return [expr [$src($i) set ack_] * 1000.0]
}
# Packets delivered: ns-2 data packets carry headers (TCP 40 bytes, TFRC 32, RAP none).
proc packets {i} {
  global n out src
  if {$i < $n} { return [$out($i) set pdepartures_] }
  return [$src($i) set ack_]
}
proc mark {} {
  global n mon b0 k0 m0
  for {set i 0} {$i < 2*$n} {incr i} { set b0($i) [delivered $i]; set k0($i) [packets $i] }
  set m0 [list [$mon set parrivals_] [$mon set pdrops_] [$mon set bdepartures_]]
}
proc finish {} {
  global n mon b0 k0 m0 simt warm agent tf
  if {[info exists tf]} { close $tf }
  set rates {}; set pkts {}
  for {set i 0} {$i < 2*$n} {incr i} {
    lappend rates [format "%.4f" [expr ([delivered $i] - $b0($i)) * 8.0 / ($simt - $warm) / 1e6]]
    lappend pkts [expr [packets $i] - $k0($i)]
  }
  set arr [expr [$mon set parrivals_] - [lindex $m0 0]]
  set drp [expr [$mon set pdrops_] - [lindex $m0 1]]
  set dep [expr [$mon set bdepartures_] - [lindex $m0 2]]
  puts [format "{\"sim\":\"ns-2.35\",\"n\":%d,\"[string tolower $agent]Mbps\":\[%s\],\"tcpMbps\":\[%s\],\"packets\":\[%s\],\"arrivals\":%d,\"drops\":%d,\"departedBytes\":%.0f}" \
    $n [join [lrange $rates 0 [expr $n-1]] ","] [join [lrange $rates $n end] ","] [join $pkts ","] $arr $drp $dep]
  exit 0
}
$ns at $warm "mark"
$ns at $simt "finish"
$ns run
