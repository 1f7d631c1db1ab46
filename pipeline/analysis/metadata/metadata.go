// Package metadata is the Metadata classifier engine: conditions on a
// conversation's metadata, combined with ALL or ANY.
//
//	{"operator": "ALL", "conditions": [
//	  {"field": "callDirection", "op": "eq", "value": "Inbound"},
//	  {"field": "extendedMetadataValues.queue", "op": "in", "values": ["billing", "sales"]},
//	  {"field": "callDurationMillis", "op": "gt", "value": 60000},
//	  {"field": "hierarchy", "op": "eq", "value": "EAST"}]}
//
// Text compares ignoring case; "hierarchy eq X" holds for conversations of
// node X and of every node below it; gt and lt compare numbers (a value
// that is not a number fails them); exists holds when the field is set.
package metadata

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/earshot/earshot/pipeline/analysis"
)

// Operators.
const (
	Eq       = "eq"
	Ne       = "ne"
	In       = "in"
	Gt       = "gt"
	Lt       = "lt"
	Contains = "contains"
	Exists   = "exists"
)

var operators = []string{Eq, Ne, In, Gt, Lt, Contains, Exists}

// Fields, besides extendedMetadataValues.<key>.
var fields = []string{"callDirection", "callDurationMillis", "chatMessageCount", "agentCode", "hierarchy", "locale"}

const extendedPrefix = "extendedMetadataValues."

type condition struct {
	field, op string
	values    []string // lower-cased
	number    float64
}

type classifier struct {
	any        bool
	conditions []condition
}

// Compile validates and compiles a definition.
func Compile(raw []byte) (analysis.Engine, error) {
	def, err := analysis.Decode(raw, "definition")
	if err != nil {
		return nil, err
	}
	if err := def.Allow("operator", "conditions"); err != nil {
		return nil, err
	}
	op, err := def.String("operator", "ALL", "ALL", "ANY")
	if err != nil {
		return nil, err
	}
	conds, err := def.Objects("conditions", true)
	if err != nil {
		return nil, err
	}
	c := &classifier{any: op == "ANY"}
	for _, o := range conds {
		cond, err := compileCondition(o)
		if err != nil {
			return nil, err
		}
		c.conditions = append(c.conditions, cond)
	}
	return c, nil
}

func compileCondition(o *analysis.Object) (condition, error) {
	if err := o.Allow("field", "op", "value", "values"); err != nil {
		return condition{}, err
	}
	var c condition
	var err error
	if c.field, err = o.String("field", ""); err != nil {
		return c, err
	}
	if !slices.Contains(fields, c.field) && (!strings.HasPrefix(c.field, extendedPrefix) || len(c.field) == len(extendedPrefix)) {
		matched := false
		for _, f := range fields {
			if strings.EqualFold(f, c.field) {
				c.field, matched = f, true
			}
		}
		if !matched {
			return c, analysis.Invalid(fmt.Sprintf("must be one of %s or extendedMetadataValues.<key>", strings.Join(fields, ", ")), o.Path, "field")
		}
	}
	if c.op, err = o.String("op", "", operators...); err != nil {
		return c, err
	}
	switch c.op {
	case "":
		return c, analysis.Invalid("is required: one of "+strings.Join(operators, ", "), o.Path, "op")
	case Exists:
		if o.Has("value") || o.Has("values") {
			return c, analysis.Invalid("takes no value", o.Path, "op")
		}
	case In:
		values, err := o.Strings("values", true)
		if err != nil {
			return c, err
		}
		for _, v := range values {
			c.values = append(c.values, strings.ToLower(v))
		}
	case Gt, Lt:
		n, err := o.Number("value", -1e18, 1e18)
		if err != nil {
			return c, err
		}
		if n == nil {
			return c, analysis.Invalid("is required: a number", o.Path, "value")
		}
		c.number = *n
	default:
		v, err := o.String("value", "")
		if err != nil {
			return c, err
		}
		if v == "" {
			return c, analysis.Invalid("is required: a non-empty string", o.Path, "value")
		}
		c.values = []string{strings.ToLower(v)}
	}
	return c, nil
}

// value is the field of a conversation as text (lower-cased), and whether
// it is set; hierarchy gives the codes of the node and those above it.
func value(m analysis.Metadata, field string) ([]string, bool) {
	one := func(s string) ([]string, bool) { return []string{strings.ToLower(s)}, s != "" }
	num := func(p *int64) ([]string, bool) {
		if p == nil {
			return nil, false
		}
		return []string{strconv.FormatInt(*p, 10)}, true
	}
	switch field {
	case "callDirection":
		return one(m.CallDirection)
	case "callDurationMillis":
		return num(m.CallDurationMillis)
	case "chatMessageCount":
		return num(m.ChatMessageCount)
	case "agentCode":
		return one(m.AgentCode)
	case "locale":
		if m.LocaleID == 0 {
			return nil, false
		}
		return []string{strconv.Itoa(m.LocaleID)}, true
	case "hierarchy":
		codes := make([]string, len(m.HierarchyCodes))
		for i, c := range m.HierarchyCodes {
			codes[i] = strings.ToLower(c)
		}
		return codes, len(codes) > 0
	}
	v, ok := m.ExtendedMetadata[strings.TrimPrefix(field, extendedPrefix)]
	return []string{strings.ToLower(v)}, ok
}

func (c condition) holds(m analysis.Metadata) bool {
	got, set := value(m, c.field)
	switch c.op {
	case Exists:
		return set
	case Ne:
		return !set || !slices.Contains(got, c.values[0])
	}
	if !set {
		return false
	}
	for _, g := range got {
		switch c.op {
		case Eq:
			if g == c.values[0] {
				return true
			}
		case In:
			if slices.Contains(c.values, g) {
				return true
			}
		case Contains:
			if strings.Contains(g, c.values[0]) {
				return true
			}
		case Gt, Lt:
			n, err := strconv.ParseFloat(g, 64)
			if err == nil && ((c.op == Gt && n > c.number) || (c.op == Lt && n < c.number)) {
				return true
			}
		}
	}
	return false
}

func (c *classifier) Evaluate(_ context.Context, conv *analysis.Conversation) (analysis.Result, error) {
	result := !c.any
	for _, cond := range c.conditions {
		ok := cond.holds(conv.Metadata)
		if c.any && ok {
			result = true
			break
		}
		if !c.any && !ok {
			result = false
			break
		}
	}
	return analysis.BoolResult(result, nil), nil
}
