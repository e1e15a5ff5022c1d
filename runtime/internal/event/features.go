package event

// Names of prompt and resource events.
const (
	PromptCollision   = "prompt.collision"       // two prompts wanted one exposed name; the loser is not offered
	PromptBlocked     = "prompt.blocked"         // a prompts/get of a name the agent does not offer
	ResourceCollision = "resource.collision"     // two servers claim one URI; the loser's is not offered, or (refused) neither template wins
	ResourceBlocked   = "resource.blocked"       // a read or subscribe of a URI the agent does not offer
	FeaturesFailed    = "server.features_failed" // a server's prompt or resource list could not be read
)
