# Cai et al.'s DTAIMD(ALPHA, 0.875) on an ns-2.35 Sack1 agent, sourced by bench/ns2_cai_fig17.tcl
# and bench/ns2_cai_fig8.tcl (ns-2.35 has no DTAIMD agent): `taimd SRC ALPHA` makes SRC cut to
# int(0.875 int(cwnd_)) packets, at least one fewer (decrease_num_ 0.875, precisionReduce_
# false) and increase by ALPHA per RTT (TAIMD); `dtaimd SRC ALPHA` also sets increase_num_
# every 10 ms from cwnd_ by Cai et al.'s L1-L6 scaled by the class's ALPHA/0.2 (ALPHA at 8
# packets or more, ALPHA/0.2 at one, ALPHA/0.2 x 3/(2w - 1) between, w the whole packets of
# cwnd_), as bench/ns2_cai_fig16.tcl does for ALPHA = 0.2. The timer is much shorter than
# an RTT.
proc taimd {src alpha} {
  $src set decrease_num_ 0.875
  $src set precisionReduce_ false
  $src set increase_num_ $alpha
}
proc dtaimd {src alpha} {
  global ns
  taimd $src $alpha
  $ns at 0 "dtaimd_alpha $src $alpha"
}
proc dtaimd_alpha {src alpha} {
  global ns
  set w [expr int([$src set cwnd_])]
  set class [expr $alpha / 0.2]
  if {$w >= 8} { set a $alpha } elseif {$w <= 1} { set a $class } else {
    set a [expr $class * 3.0 / (2 * $w - 1)]
  }
  $src set increase_num_ $a
  $ns at [expr [$ns now] + 0.01] "dtaimd_alpha $src $alpha"
}
