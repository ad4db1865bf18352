package app

import (
	"github.com/sandcastle-action/sandcastle/internal/agent"
	"github.com/sandcastle-action/sandcastle/internal/inputs"
)

// agentInfos are the agents the agent input accepts, as inputs checks them.
func agentInfos() []inputs.AgentInfo {
	var infos []inputs.AgentInfo
	for _, s := range agent.Specs() {
		infos = append(infos, inputs.AgentInfo{Name: s.Name, Efforts: s.Efforts, PermissionModes: s.PermissionModes, Resumable: s.Sessions != nil, Forkable: s.Sessions != nil && s.Sessions.Fork, ReportsCost: s.ReportsCost})
	}
	return infos
}
