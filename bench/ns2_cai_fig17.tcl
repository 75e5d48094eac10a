# ns-2.35 counterpart of Cai et al.'s Fig. 17 (§IV-C, §V-B3; ccscope:
# scenarios/cai-fig17-differentiation.toml, cai.fig17_ratio): DATA Sack1 flows (TCP, class 1)
# and MEDIA flows of DTAIMD(ALPHA2, 0.875) (class 2) from their own hosts over 1 Gb/s access
# links of 2 ms (class 1) and 3 ms (class 2) to L, L-R 15 Mb/s 20 ms RED (ns-2.35's automatic
# thresholds and weight, gentle, limit 300), R to each sink over 1 Gb/s, 1 ms. Every flow
# starts at a uniform time in [0, 2) s; ns-2.35 defaults otherwise. The set-up's defaults and
# the DTAIMD agent: bench/ns2_cai_common.tcl.
# usage: ns ns2_cai_fig17.tcl DATA MEDIA ALPHA2 SIM_S WARMUP_S SEED
# prints one JSON line: each flow's packets acknowledged (ack_) between WARMUP_S and SIM_S,
# class 1 first, and the packet size on the wire.
set data [lindex $argv 0]; set media [lindex $argv 1]; set alpha2 [lindex $argv 2]
set simt [lindex $argv 3]; set warm [lindex $argv 4]; set seed [lindex $argv 5]
source [file join [file dirname [info script]] ns2_cai_common.tcl]
cai_start $seed
set L [$ns node]; set R [$ns node]
$ns duplex-link $L $R 15Mb 20ms RED
$ns queue-limit $L $R 300
$ns queue-limit $R $L 300
set u [new RandomVariable/Uniform]; $u set min_ 0; $u set max_ 2
set flows {}
for {set i 0} {$i < $data + $media} {incr i} {
  lassign [sack_flow $L $R 1000Mb [expr {$i < $data ? "2ms" : "3ms"}]] src ftp
  $ns at [$u value] "$ftp start"
  if {$i >= $data} { dtaimd $src $alpha2 }
  lappend flows $src
}
acked_between $flows $warm $simt
$ns run
