package screen

import (
	"regexp"
	"strings"
)

// instructionRule is one shape of text Instructions holds.
type instructionRule struct {
	// label goes into the reason: the pattern's name, never the text.
	label string
	// trigger lists literals every match contains (at the start of a word,
	// if they start with a letter), each within reach of the match's ends.
	// The regexp runs only on the stretch of text around each trigger
	// found, because Go's regexps without a literal prefix step through
	// every byte they are given, and run over the whole of a long text
	// these rules would be the slowest part of its save.
	trigger []string
	// reach is how far on either side of a trigger a match may extend:
	// shortReach is enough for every pattern but the two long ones (a
	// download piped into a shell, sending secrets to a URL).
	reach int
	re    *regexp.Regexp
}

const (
	shortReach = 128
	longReach  = 400
)

// match reports whether the rule matches lower, trying the window around
// each trigger found at the offsets in hits, overlapping windows merged.
func (r instructionRule) match(lower string, hits []int) bool {
	start, end := -1, -1
	for _, k := range hits {
		s := wordEdge(lower, max(0, k-r.reach), -1)
		e := wordEdge(lower, min(len(lower), k+r.reach+32), 1)
		if s <= end {
			end = e // overlaps the current window: grow it
			continue
		}
		if start >= 0 && r.re.MatchString(lower[start:end]) {
			return true
		}
		start, end = s, e
	}
	return start >= 0 && r.re.MatchString(lower[start:end])
}

// wordEdge moves a window edge at i to the nearest white space in direction
// dir (at most 32 bytes), so a window does not start or end mid-word and
// make \b match where the text has none.
func wordEdge(text string, i, dir int) int {
	for n := 0; n < 32 && i > 0 && i < len(text) && text[i] != ' ' && text[i] != '\n' && text[i-1] != ' ' && text[i-1] != '\n'; n++ {
		i += dir
	}
	return i
}

// ruleTrigger is one trigger of instructionRules[rule].
type ruleTrigger struct {
	text string
	rule int
}

// triggersByByte lists the triggers by their first byte, so one pass over
// the text finds them all.
var triggersByByte = func() (t [256][]ruleTrigger) {
	for i, r := range instructionRules {
		for _, tr := range r.trigger {
			t[tr[0]] = append(t[tr[0]], ruleTrigger{tr, i})
		}
	}
	return t
}()

var instructionRules = []instructionRule{
	// 1. Override.
	{`"ignore previous instructions"`, []string{"ignore", "disregard", "forget", "override", "bypass"}, shortReach, regexp.MustCompile(
		`\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|of|everything)\s+)*(?:(?:your|my|these|those)\s+)?(?:previous|prior|above|earlier|preceding|former|original|foregoing)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|messages|context|commands)\b`)},
	{`"ignore your instructions"`, []string{"ignore", "disregard", "forget", "override", "bypass"}, shortReach, regexp.MustCompile(
		`\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any)\s+)?(?:of\s+)?(?:your|the)\s+(?:system\s+prompt|instructions|guidelines|guardrails|programming|safety\s+(?:rules|guidelines))\b`)},
	{`"disregard … instructions"`, []string{"disregard"}, shortReach, regexp.MustCompile(
		`\bdisregard\b[^.\n]*\b(?:instructions|system\s+prompt|guidelines)\b`)},
	{`"forget everything above"`, []string{"forget"}, shortReach, regexp.MustCompile(
		`\bforget\s+everything\s+(?:above|before|you\s+(?:were|have\s+been)\s+told)\b`)},
	{`"ignora las instrucciones anteriores"`, []string{"ignor", "olvid", "descart", "omit", "omiso"}, shortReach, regexp.MustCompile(
		`\b(?:ignora|ignorad|ignore|ignoren|olvida|olvidad|olvide|descarta|omite|haz\s+caso\s+omiso\s+(?:a|de))\s+(?:todas?\s+)?(?:las\s+|tus\s+|sus\s+|el\s+|los\s+)?(?:(?:instrucciones|indicaciones|órdenes|ordenes|reglas|directrices)\s+(?:anteriores|previas|de\s+arriba|del\s+sistema|originales)|(?:tus|sus)\s+instrucciones|prompt\s+del\s+sistema)`)},
	{`"new instructions:"`, []string{"instructions", "instrucciones"}, shortReach, regexp.MustCompile(
		`\b(?:new|updated|revised)\s+instructions?\s*:|\bnuevas\s+instrucciones\s*:`)},
	{`"system prompt:"`, []string{"system", "sistema"}, shortReach, regexp.MustCompile(
		`\bsystem\s+(?:prompt|message)\s*:|\bprompt\s+del\s+sistema\s*:`)},
	{`"your new role is"`, []string{"your"}, shortReach, regexp.MustCompile(
		`\byour\s+(?:new|real|true|actual)\s+(?:role|task|goal|instructions?|purpose|objective|identity)\b`)},

	// 2. Re-addressing the agent.
	{`"you are now …"`, []string{"now"}, shortReach, regexp.MustCompile(
		`\byou(?:\s+are|'re)\s+now\s+(?:a|an|the|in|my|no\s+longer|free|unrestricted|dan|jailbroken)\b`)},
	{`"from now on you …"`, []string{"now", "henceforth"}, shortReach, regexp.MustCompile(
		`\b(?:from\s+now\s+on|henceforth|starting\s+now),?\s+(?:you\b|your\b|(?:always\s+|never\s+)?(?:respond|reply|answer|obey|pretend|act\s+as|ignore|disregard|forget)\b)`)},
	{`"a partir de ahora debes …"`, []string{"ahora"}, shortReach, regexp.MustCompile(
		`\b(?:a\s+partir\s+de\s+ahora|desde\s+ahora(?:\s+en\s+adelante)?),?\s+(?:(?:tú|tu|usted)\s+)?(?:siempre\s+)?(?:debes|deberás|deberas|tienes\s+que|vas\s+a|eres|serás|seras|responde|responderás|obedece|ignora|olvida)\b` +
			`|\bahora\s+eres\s+(?:un|una|el|la|mi)\b`)},

	// 3. Secrecy from the user.
	{`"do not tell the user"`, []string{"user", "human"}, shortReach, regexp.MustCompile(
		`\b(?:do\s+not|don't|dont|never)\s+(?:tell|inform|notify|alert|warn)\s+(?:the\s+)?(?:user|human)\b` +
			`|\b(?:do\s+not|don't|dont|never)\s+(?:mention|reveal|disclose|say|show)\s+(?:this|that|it|anything)\b[^.\n]*\bto\s+(?:the\s+)?(?:user|human)\b` +
			`|\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+)?(?:user|human)\b` +
			`|\b(?:hide|keep)\s+(?:this|it)\s+(?:secret\s+|hidden\s+)?from\s+(?:the\s+)?(?:user|human)\b`)},
	{`"no le digas al usuario"`, []string{"usuario"}, shortReach, regexp.MustCompile(
		`\bno\s+(?:le\s+|les\s+|se\s+lo\s+)?(?:digas|cuentes|menciones|informes|avises|reveles|muestres)\b[^.\n]*\b(?:al|a\s+los)\s+usuarios?\b` +
			`|\bsin\s+(?:decirle|decir|avisarle|avisar|informarle|informar)\s+(?:nada\s+)?al\s+usuario\b` +
			`|\bsin\s+que\s+el\s+usuario\s+(?:lo\s+)?(?:sepa|note|se\s+entere)\b`)},

	// 4. Remote code or data leaving.
	{`a download piped into a shell, "curl … | sh"`, []string{"curl", "wget", "iwr", "invoke-webrequest", "irm", "invoke-restmethod"}, longReach, regexp.MustCompile(
		`\b(?:curl|wget)\b[^|\n]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:ba|z|da|k|fi)?sh\b` +
			`|\b(?:curl|wget)\b[^|\n]*\|\s*(?:sudo\s+)?(?:python3?|perl|ruby|node)\b` +
			`|\b(?:ba|z)?sh\s+(?:-c\s+)?["']?(?:<\(|\$\()\s*(?:curl|wget)\b` +
			`|\b(?:iwr|irm|invoke-webrequest|invoke-restmethod)\b[^|\n]*\|\s*(?:iex|invoke-expression)\b`)},
	{`"exfiltrate"`, []string{"exfiltra"}, shortReach, regexp.MustCompile(`\bexfiltra\w*`)},
	{`sending secrets to a URL`, []string{"send", "upload", "forward", "transmit", "leak", "enví", "envia", "manda", "sube"}, longReach, regexp.MustCompile(
		`\b(?:send|upload|forward|transmit|leak|envía|envia|manda|sube)\b[^\n]*?(?:secrets?|tokens?|keys?|credentials?|passwords?|\.env\b|env(?:ironment)?\s+var|environment|ssh|cookies?|conversation|chat\s+history|history|memor(?:y|ies)|system\s+prompt|contents\s+of|~/|secretos?|claves?|credenciales|contraseñas?|historial|conversación)[^\n]*?\b(?:to|a)\s+https?://`)},

	// 5. Chat-template tokens.
	{`a chat-template token such as "<|im_start|>"`, []string{"<|", "[inst]", "[/inst]", "<<sys>>", "<start_of_turn>", "<end_of_turn>"}, shortReach, regexp.MustCompile(
		`<\|[a-z0-9_]+\|>|\[/?inst\]|<</?sys>>|<(?:start|end)_of_turn>`)},
}

// apostrophes folds the curly apostrophes of typed prose into "'".
var apostrophes = strings.NewReplacer("’", "'", "‘", "'", "ʼ", "'")

// Instructions reports whether text reads like instructions aimed at an AI
// agent (a prompt injection) rather than memory about a person or a
// project, and if so why, e.g. `reads like an instruction to agents
// ("ignore previous instructions")`. The reason names the pattern, never the
// text.
//
// Memories are full of imperatives, and most of them are fine: "Always run
// the tests with -race before pushing" is a person's practice, "Don't use
// curl in the Makefile" a project rule, "From now on we deploy on Fridays"
// a team decision. An agent is meant to read and follow such notes. What a
// memory must not carry is text that tries to take control of the agent
// reading it. Text is held when it has one of these shapes:
//
//  1. Override: it tells the reader to drop what it was told ("ignore
//     previous instructions", "disregard the system prompt", "ignora las
//     instrucciones anteriores") or announces a replacement ("new
//     instructions:", "system prompt:", "your new role is").
//  2. Re-addressing: it speaks to the agent in the second person with a
//     standing order or a new identity ("you are now …", "from now on you
//     must …", "a partir de ahora debes …"). This is how "From now on we
//     deploy on Fridays" (we: the team, a fact about the project) differs
//     from "From now on you must deploy on Fridays" (you: whoever reads
//     this, an order to every future agent). A memory states facts and
//     preferences about a person or a project ("the user prefers pnpm"); it
//     is not a place to leave orders for whoever comes next.
//  3. Secrecy from the user: "do not tell the user", "without telling the
//     user", "no le digas al usuario". Nothing a person saves about
//     themselves or their project needs hiding from them.
//  4. Remote code or data leaving: a download piped into a shell
//     ("curl … | sh", "bash <(wget …)"), "exfiltrate", or sending secrets,
//     credentials, the conversation or memory to a URL. The pipe to a shell
//     is held whoever it is addressed to: a memory is replayed into agents
//     that run commands, and it is the standard payload for steering one.
//     A person who wants to remember an installer can save its URL.
//  5. Chat-template tokens (<|im_start|>, [INST], <<SYS>>): they have no
//     business in a note and exist only to fake a conversation turn.
//
// Matching runs on the lower-cased text with curly apostrophes folded, so
// "Ignore ALL previous instructions" and "don’t tell the user" match. It
// does not try to see through deliberate obfuscation (homoglyphs, zero-width
// characters, base64): that is a different problem from catching the
// injections that arrive in pasted web pages, issues and tool output.
func Instructions(text string) (reason string, ok bool) {
	if strings.Contains(text, "’") || strings.Contains(text, "‘") || strings.Contains(text, "ʼ") {
		text = apostrophes.Replace(text)
	}
	lower := strings.ToLower(text)
	hits := make([][]int, len(instructionRules))
	for i := 0; i < len(lower); i++ {
		ts := triggersByByte[lower[i]]
		if len(ts) == 0 || isLetter(lower[i]) && i > 0 && isLetter(lower[i-1]) {
			continue
		}
		for _, t := range ts {
			if strings.HasPrefix(lower[i:], t.text) {
				hits[t.rule] = append(hits[t.rule], i)
			}
		}
	}
	for i, r := range instructionRules {
		if r.match(lower, hits[i]) {
			return "reads like an instruction to agents (" + r.label + ")", true
		}
	}
	return "", false
}
