package inputs

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// budgets reads the run's budgets, the timeouts keys run-minutes and max-cost-usd; 0 for
// either is no limit. A cost limit needs an agent that reports what it costs: with any other it
// could never be reached.
func (l *loader) budgets(agent AgentInfo, agentOK bool) (time.Duration, float64) {
	var run time.Duration
	if _, ok := l.given(InputRunMinutes); ok {
		run = time.Duration(l.number(InputRunMinutes, 1, maxSeconds/60)) * time.Minute
	}
	v := l.single(InputMaxCostUSD)
	if v == "" {
		return run, 0
	}
	cost, err := strconv.ParseFloat(v, 64)
	switch {
	case !decimalRe.MatchString(v) || err != nil || math.IsInf(cost, 0):
		l.problem(InputMaxCostUSD, "%q is not an amount of US dollars; use a decimal number above 0, like 5 or 0.50", v)
	case cost == 0:
		l.problem(InputMaxCostUSD, "0 would stop the run before it starts; use an amount above 0, or leave it empty for no limit")
	case agentOK && !agent.ReportsCost:
		l.problem(InputMaxCostUSD, "agent %q reports no cost, so the budget could never be checked; leave max-cost-usd empty, or use an agent that reports its cost: %s", agent.Name, strings.Join(l.agentsWith(func(a AgentInfo) bool { return a.ReportsCost }), ", "))
	default:
		return run, cost
	}
	return run, 0
}
