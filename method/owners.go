package method

import (
	"fmt"

	"github.com/dppub/dppub/data"
	"github.com/dppub/dppub/ownerstats"
	"github.com/dppub/dppub/randx"
)

// OwnerName is the name of owner i (1-based) in a one-process run.
func OwnerName(i int) string { return fmt.Sprintf("owner-%d", i) }

// OwnersLocal lays out a one-process run of owners of rows: owner-1..m
// hold the tables in order; every other role is offered under its own name.
func OwnersLocal(owners []*data.Table, src *randx.Source, extraRoles ...string) LocalOptions {
	o := LocalOptions{Members: map[string][]string{}, Data: map[string]*data.Table{}, Source: src}
	for i, t := range owners {
		name := OwnerName(i + 1)
		o.Members[RoleOwner] = append(o.Members[RoleOwner], name)
		o.Data[name] = t
	}
	for _, r := range extraRoles {
		o.Members[r] = []string{r}
	}
	return o
}

// StatisticsLocal lays out a one-process run of owners of rows who bring
// statistics computed elsewhere under the public schema.
func StatisticsLocal(stats []*ownerstats.Statistics, schema data.Schema, src *randx.Source) LocalOptions {
	o := LocalOptions{Members: map[string][]string{}, Stats: map[string]*ownerstats.Statistics{},
		Schemas: []data.Schema{schema}, Source: src}
	for i, st := range stats {
		name := OwnerName(i + 1)
		o.Members[RoleOwner] = append(o.Members[RoleOwner], name)
		o.Stats[name] = st
	}
	return o
}
