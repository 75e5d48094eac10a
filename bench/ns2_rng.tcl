# Independent runs in ns-2.35 (sourced by the bench/ns2_*.tcl scripts). Every ns-2.35
# generator is L'Ecuyer's MRG32k3a (tools/rng.cc), a linear recurrence: `$rng seed N` sets all
# six words of its state to N, so the uniforms of seed N are about N times those of seed 1,
# modulo 1, and seeds 1, 2, 3, ... are far from independent (seed 2 drops, under a loss rate
# p, nearly every packet on which seed 1 drew below p/2). All runs here keep the seed ns-2.35
# starts with (tcl/lib/ns-random.tcl seeds the default generator with 1; each `new RNG` takes
# the next stream, 2^127 draws on) and run N draws from substream N of every generator (2^76
# draws apart), as the ns Manual's chapter on random numbers advises for replications.

# Run RUN: the default generator (`Random::uniform()` and every RandomVariable without an RNG of
# its own) on its substream RUN.
proc seed_run {run} {
  global defaultRNG
  substream $defaultRNG $run
}
# A new generator on substream RUN of its stream.
proc run_rng {run} {
  set rng [new RNG]
  substream $rng $run
  return $rng
}
proc substream {rng run} {
  for {set i 1} {$i < $run} {incr i} { $rng next-substream }
}
