// Package dialogues writes realistic call-center conversations for the
// demo and for fixtures: an agent and a customer, one of several intents,
// with the moments the starter classifiers look for — greetings, identity
// checks, empathy, escalations, cancellations, spoken PII, long silences
// and unhappy customers — each present in some conversations and absent
// from others, and a time for every turn. It is seeded: the same seed
// gives the same conversations.
package dialogues

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Speakers.
const (
	Agent    = "Agent"
	Customer = "Customer"
)

// Turn is one message or utterance.
type Turn struct {
	Speaker string
	Text    string
	Offset  time.Duration // from the start of the conversation
}

// Dialogue is one generated conversation.
type Dialogue struct {
	Intent string
	Start  time.Time
	Turns  []Turn
	// Traits says which optional moments it has (greeting, identity,
	// empathy, escalation, pii, dead_air, unhappy). dead_air is a 45 s gap
	// between two messages: a chat's message lasts until the next one, so
	// only a call can show it as silence.
	Traits map[string]bool
}

// Intents are the reasons customers get in touch.
var Intents = []string{"billing", "cancellation", "technical", "address_change", "order_status", "lost_card"}

// Generator writes dialogues from one random source.
type Generator struct {
	rng *rand.Rand
}

// New is a generator seeded with seed.
func New(seed uint64) *Generator {
	return &Generator{rng: rand.New(rand.NewPCG(seed, seed^0x5eed))}
}

// opening lines of each intent, said by the customer.
var openings = map[string][]string{
	"billing": {
		"I was charged twice on my last bill and I need that fixed.",
		"There is a charge on my statement I don't recognize.",
		"My bill went up this month and nobody told me why.",
	},
	"cancellation": {
		"I want to cancel my subscription, please.",
		"I'd like to close my account today.",
		"I'm moving abroad so I need to cancel the service.",
	},
	"technical": {
		"My internet has been dropping every evening for a week.",
		"The router keeps restarting and I can't get online.",
		"The app crashes every time I try to log in.",
	},
	"address_change": {
		"I moved last month and need to update my address.",
		"Can you change the delivery address on my account?",
	},
	"order_status": {
		"I ordered a phone ten days ago and it still hasn't arrived.",
		"Where is my order? The tracking hasn't moved since Monday.",
	},
	"lost_card": {
		"I lost my card yesterday and I need to block it.",
		"My wallet was stolen, can you freeze my card?",
	},
}

// middles are the agent's and the customer's exchanges on each intent.
var middles = map[string][][2]string{
	"billing": {
		{"I can see two payments of forty nine dollars on the fifth. Let me look into that.", "Yes, that's the one, it was only supposed to be one payment."},
		{"I've issued a refund for the duplicate charge, it takes three to five business days.", "Okay, as long as it gets refunded."},
	},
	"cancellation": {
		{"Before I process that, can I offer you three months at half price to stay?", "No thanks, I've made up my mind."},
		{"Understood. I've scheduled the cancellation for the end of this billing period.", "Will I get a confirmation by email?"},
		{"Yes, you'll receive a confirmation email within the hour.", "Great."},
	},
	"technical": {
		{"Let's run a line test. Could you unplug the router for thirty seconds and plug it back in?", "Okay, it's restarting now."},
		{"The line test shows noise on the connection. I'll book a technician for Thursday morning.", "Thursday morning works for me."},
	},
	"address_change": {
		{"What's the new address, with the postal code?", "It's 42 Harbor Street, apartment 5, Springfield, 62704."},
		{"I've updated the address. Future bills and deliveries will go there.", "Perfect, thank you."},
	},
	"order_status": {
		{"I can see the order. It was held at the depot because of a labeling problem.", "So when will it arrive?"},
		{"I've asked the depot to send it out today. You should have it by Friday.", "Alright, Friday then."},
	},
	"lost_card": {
		{"I've blocked the card ending in 4242 so nobody can use it.", "Thank goodness. Can I get a new one?"},
		{"A replacement card will arrive within five business days.", "Okay, that's fine."},
	},
}

var (
	agentNames = []string{"Maria", "James", "Aisha", "Tom", "Lucia", "Kenji", "Sarah", "David"}
	firstNames = []string{"John", "Emma", "Carlos", "Priya", "Liam", "Olivia", "Noah", "Mei"}
	lastNames  = []string{"Smith", "Garcia", "Chen", "Patel", "Brown", "Kowalski", "Nguyen", "Okafor"}
	greetings  = []string{
		"Thank you for calling Northwind, my name is %s. How can I help you today?",
		"Good morning, thanks for calling Northwind, this is %s. How may I help you?",
		"Hello, welcome to Northwind support, my name is %s. How can I help?",
	}
	blunt = []string{"Yeah.", "What do you need?", "Go ahead."}
	// cards are test numbers that pass the Luhn check.
	cards = []string{"4111 1111 1111 1111", "5555 5555 5555 4444", "4012 8888 8888 1881"}
)

// Dialogue writes the next conversation, starting at start.
func (g *Generator) Dialogue(start time.Time) Dialogue {
	intent := Intents[g.rng.IntN(len(Intents))]
	d := Dialogue{Intent: intent, Start: start, Traits: map[string]bool{}}
	agent := pick(g.rng, agentNames)
	first, last := pick(g.rng, firstNames), pick(g.rng, lastNames)
	var lines []Turn
	say := func(speaker, text string) { lines = append(lines, Turn{Speaker: speaker, Text: text}) }
	trait := func(name string, share float64) bool {
		on := g.rng.Float64() < share
		d.Traits[name] = on
		return on
	}

	if trait("greeting", 0.85) {
		say(Agent, fmt.Sprintf(pick(g.rng, greetings), agent))
	} else {
		say(Agent, pick(g.rng, blunt))
	}
	say(Customer, pick(g.rng, openings[intent]))
	if trait("identity", 0.7) {
		say(Agent, "Before we go on, I need to verify your identity. Could you confirm your name and date of birth?")
		say(Customer, fmt.Sprintf("%s %s, born March %d, 19%d.", first, last, 1+g.rng.IntN(28), 60+g.rng.IntN(40)))
	}
	unhappy := trait("unhappy", 0.3)
	if unhappy {
		say(Customer, "Honestly this is the worst service I've ever had. I'm really angry and frustrated.")
	}
	if trait("empathy", 0.55) {
		say(Agent, "I'm sorry to hear that, I understand how frustrating this must be. Let me help you with that.")
	}
	for _, ex := range middles[intent] {
		say(Agent, ex[0])
		say(Customer, ex[1])
	}
	if trait("pii", 0.25) {
		email := strings.ToLower(first+"."+last) + "@example.com"
		if g.rng.IntN(2) == 0 {
			say(Customer, "You can reach me at "+email+" or call me on 555 013 "+fmt.Sprintf("%04d", g.rng.IntN(10000))+".")
		} else {
			say(Customer, "Just charge the card I always use, it's "+pick(g.rng, cards)+".")
		}
		say(Agent, "Thank you, I've noted that.")
	}
	if trait("escalation", map[bool]float64{true: 0.6, false: 0.05}[unhappy]) {
		say(Customer, "This is not good enough. I want to speak to a manager right now.")
		say(Agent, "Of course. Let me transfer you to my supervisor, please hold.")
	}
	say(Agent, "Is there anything else I can help you with today?")
	if unhappy {
		say(Customer, "No. I'm still not happy about any of this.")
	} else {
		say(Customer, "No, that's all. Thanks for your help.")
	}
	say(Agent, "Thank you for contacting Northwind. Have a great day.")

	deadAir := trait("dead_air", 0.1)
	silenceAt := 1 + g.rng.IntN(len(lines)-1)
	at := time.Duration(0)
	for i := range lines {
		if i > 0 {
			// Typing or speaking time grows with the words, plus a pause.
			words := len(strings.Fields(lines[i].Text))
			at += time.Duration(1500+300*words+g.rng.IntN(2500)) * time.Millisecond
			if deadAir && i == silenceAt {
				at += 45 * time.Second
			}
		}
		lines[i].Offset = at
	}
	d.Turns = lines
	return d
}

func pick[T any](rng *rand.Rand, from []T) T { return from[rng.IntN(len(from))] }

// Metadata is the per-conversation metadata of an Earshot JSON chat (the
// upload metadata keys).
type Metadata map[string]any

// EarshotJSON is the dialogue as an Earshot JSON chat (CONTRACT §3), with
// absolute timestamps and metadata.
func (d Dialogue) EarshotJSON(meta Metadata) ([]byte, error) {
	type message struct {
		Participant string `json:"participant"`
		Text        string `json:"text"`
		Timestamp   string `json:"timestamp"`
	}
	doc := struct {
		Messages []message `json:"messages"`
		Metadata Metadata  `json:"metadata,omitempty"`
	}{Metadata: meta}
	for _, t := range d.Turns {
		doc.Messages = append(doc.Messages, message{Participant: t.Speaker, Text: t.Text,
			Timestamp: d.Start.Add(t.Offset).UTC().Format(time.RFC3339)})
	}
	return json.Marshal(doc)
}
