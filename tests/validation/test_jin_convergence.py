"""Jin et al. Fig. 20's parking lot (§6.3): the reproduction jin-fig20 runs it and holds
Table 6's ordering; here, the scenario file is that set-up."""

from validation_setups import SCENARIOS

import ccscope
from ccscope.experiments import jin
from ccscope.scenario import Scenario


def test_scenario_file_is_the_tested_set_up():
    built = Scenario.from_dict(
        jin.fig20_scenario(1, jin.FIG20_CONTROLLERS["SIMD"], jin.FIG20_DURATION_S["SIMD"])
    )
    assert ccscope.load(SCENARIOS / "jin-fig20-parkinglot.toml") == built
