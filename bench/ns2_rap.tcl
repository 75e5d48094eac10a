# ns-2.35 RAP against TCP on the set-up of scenarios/tfrc-tcp-red.toml: bench/ns2_tfrc.tcl with
# N Agent/RAP flows (rap.cc defaults: ACKs of rap_base_hdr_size_ = 44 bytes, a loss declared
# once a packet 3 sequence numbers later is acknowledged, or by the per-packet timer) in place
# of TFRC, and N TCP/Sack1 bulk flows.
# usage: ns ns2_rap.tcl N BW_MBPS DELAY_MS SIM_S WARMUP_S SEED
# prints one JSON line as ns2_tfrc.tcl does, with rapMbps for tfrcMbps.
set agent RAP
source [file join [file dirname [info script]] ns2_tfrc.tcl]
