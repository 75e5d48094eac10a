# ns-2.35 counterpart of Cai et al.'s Figs. 8 and 9 (§V-A2c; ccscope: cai.fig8_scenario, whose
# comment gives what is assumed): N Sack1 flows (TCP) and N of KIND (taimd or dtaimd,
# AIMD(0.2, 0.875), bench/ns2_cai_common.tcl) interleaved, flow i from its own host over a
# 1 Gb/s link of 1 + 4 frac(0.6180339887 i) ms to L, L-R 15 Mb/s 20 ms RED (thresh_ 25,
# maxthresh_ 125, linterm_ 10 (max_p 0.1), gentle, ns-2.35's automatic weight, limit 250), R to
# each sink over 1 Gb/s, 1 ms. Every flow starts at a uniform time in [0, 1) s; ns-2.35
# defaults otherwise (the set-up's: bench/ns2_cai_common.tcl).
# usage: ns ns2_cai_fig8.tcl N KIND SIM_S WARMUP_S SEED
# prints one JSON line: each flow's packets acknowledged (ack_) between WARMUP_S and SIM_S, in
# flow order (TCP the even ones), and the packet size on the wire.
set n [lindex $argv 0]; set kind [lindex $argv 1]
set simt [lindex $argv 2]; set warm [lindex $argv 3]; set seed [lindex $argv 4]
source [file join [file dirname [info script]] ns2_cai_common.tcl]
cai_start $seed
Queue/RED set thresh_ 25
Queue/RED set maxthresh_ 125
Queue/RED set linterm_ 10
set L [$ns node]; set R [$ns node]
$ns duplex-link $L $R 15Mb 20ms RED
$ns queue-limit $L $R 250
$ns queue-limit $R $L 250
set u [new RandomVariable/Uniform]; $u set min_ 0; $u set max_ 1
set flows {}
for {set i 0} {$i < 2 * $n} {incr i} {
  set delay [format "%.3fms" [expr 1 + 4 * fmod($i * 0.6180339887, 1)]]
  lassign [sack_flow $L $R 1000Mb $delay] src ftp
  $ns at [$u value] "$ftp start"
  if {$i % 2 == 1} { $kind $src 0.2 }
  lappend flows $src
}
acked_between $flows $warm $simt
$ns run
