package audit

// View is what the adversary of a view audit sees: the coordinator's
// messages, those plus a colluding member's knowledge, or a
// method's own views (Mul-LDA-DP's zero-sum views, PDP-MVDS's
// third party).
type View string

// Views of a multi-party run.
const (
	// ViewCoordinator is what the coordinator (curator) receives.
	ViewCoordinator View = "coordinator"
	// ViewColluder adds what owner 2 knows to the coordinator's view.
	ViewColluder View = "colluder"
	// ViewCoalition adds what every owner but owner 1 knows.
	ViewCoalition View = "coalition"
)
