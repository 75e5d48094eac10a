# ns-2.35 counterpart of Yang et al.'s responsiveness set-up (§4.1's persistent congestion;
# ccscope: ccscope.experiments.yang.responsiveness_scenario) on the path of
# bench/ns2_yang_common.tcl's yang_path, without random loss: from AT1_S the first packet
# serialized on the bottleneck at or after each multiple of EVERY1_S from AT1_S is lost, and from
# AT2_S the same on a grid of EVERY2_S from AT2_S (one loss per RTT).
# ns-2.35's periodic error model (errmodel.cc, unit time) counts its period from the last drop,
# so its losses drift off that grid. Here the error model is armed (rate_ 1) at each grid time,
# as the packet serialized then reaches it (yang_at), and disarmed (rate_ 0) by its drop target
# when it drops one: a grid time with no packet left to lose loses the next one, as in ccscope.
# AGENT and INCREASE DECREASE as bench/ns2_yang_common.tcl.
# The flow starts at START_S: nothing here draws at random, so runs differ only by their start.
# usage: ns ns2_yang_resp.tcl AT1_S EVERY1_S AT2_S EVERY2_S SIM_S BIN_S SEED START_S AGENT
#          [INCREASE DECREASE]
# prints one JSON line: the packets the source sent into its access link in each BIN_S bin
# from 0 to SIM_S (retransmissions included), as bench/ns2_yang_step.tcl does.
lassign $argv at1 every1 at2 every2 simt bin seed start
source [file join [file dirname [info script]] ns2_yang_common.tcl]
yang_setup $seed {*}[lrange $argv 8 end]
lassign [yang_path 0] s L R d rng u em
# Drops reach this agent (an Agent/Message whose Tcl recv is called with each packet it gets):
# set after link-lossmodel, which points the drop target at the link's drophead.
Class Agent/Disarm -superclass Agent/Message
Agent/Disarm instproc recv {args} {
  global em
  $em set rate_ 0
}
set disarm [new Agent/Disarm]
$ns attach-agent $R $disarm
$em drop-target $disarm
# The grid, counted in whole intervals so that no time drifts by adding.
for {set k 0} {$at1 + $k * $every1 < $at2 - 1e-9} {incr k} {
  yang_at [expr {$at1 + $k * $every1}] "$em set rate_ 1"
}
for {set k 0} {$at2 + $k * $every2 < $simt - 1e-9} {incr k} {
  yang_at [expr {$at2 + $k * $every2}] "$em set rate_ 1"
}
lassign [yang_flow $s $d] src app
yang_run_binned $s $L $app $start
