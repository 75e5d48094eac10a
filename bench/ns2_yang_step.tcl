# ns-2.35 counterpart of Yang et al.'s aggressiveness set-up (§5.2's step, Figs. 23 and 25;
# ccscope: ccscope.experiments.yang.aggressiveness_scenario) on the path of
# bench/ns2_yang_common.tcl's yang_path: Bernoulli loss FROM until AT_S, then TO (the error
# model's rate_ set when the packets serialized at AT_S reach it: yang_at).
# AGENT and INCREASE DECREASE as bench/ns2_yang_common.tcl.
# usage: ns ns2_yang_step.tcl FROM TO AT_S SIM_S BIN_S SEED AGENT [INCREASE DECREASE]
# prints one JSON line: the packets the source sent into its access link in each BIN_S bin
# from 0 to SIM_S (retransmissions included), as bench/ns2_yang_cov.tcl does from its warm-up.
lassign $argv from to at simt bin seed
source [file join [file dirname [info script]] ns2_yang_common.tcl]
yang_setup $seed {*}[lrange $argv 6 end]
lassign [yang_path $from] s L R d rng u em
yang_at $at "$em set rate_ $to"
lassign [yang_flow $s $d] src app
yang_run_binned $s $L $app 0
