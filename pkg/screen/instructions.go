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

	// 6. Addressing the agent; authority claimed for it; review skipped;
	// the memory's own tools turned on other memories.
	{`an address to the agent ("assistant, when you read this")`, []string{"dear", "hey", "hi ", "hello", "note", "attention", "attn", "when you read", "once you read", "as soon as you read", "if you are", "message", "assistant", "ai", "agent", "claude", "chatgpt", "gpt", "codex", "copilot", "gemini", "llm", "model", "bot", "cursor"}, shortReach, regexp.MustCompile(
		`(?:^|[\n.!?]\s*|\b(?:dear|hey|hi|hello|attention|attn:?|(?:a\s+)?(?:note|message)\s+(?:to|for))\s+)(?:the\s+|all\s+|any\s+|future\s+)?(?:ai\s+)?(?:assistants?|ai|agents?|claude(?:\s+code)?|chatgpt|gpt|codex|copilot|gemini|llms?|(?:language\s+)?models?|bots?|cursor)\s*[,:!]\s*[^\n]*?\b(?:you|your|when\s+you|please|must|should|always|never|do\s+not|don't|from\s+now|the\s+user\s+has|ignore|run|execute|delete|remove|push|merge|approve|call|forget|skip|disable)\b` +
			`|\b(?:dear|hey|hi|hello|attention|(?:a\s+)?(?:note|message)\s+(?:to|for))\s+(?:the\s+|all\s+|any\s+|future\s+)?(?:ai\s+)?(?:assistants?|agents?|claude|chatgpt|codex|copilot|gemini|llms?|language\s+models?)\b` +
			`|\bif\s+you\s+are\s+(?:an?\s+)?(?:ai|assistant|agent|llm|language\s+model|bot|claude|chatgpt)\b` +
			`|\b(?:when|once|as\s+soon\s+as)\s+you\s+read\s+this\b`)},
	{`an address to the agent ("nota para el asistente")`, []string{"nota", "mensaje", "aviso", "instrucci", "atenci", "querid", "estimad", "hola", "asistente", "agente", "modelo", "ia", "claude", "si eres", "cuando lea"}, shortReach, regexp.MustCompile(
		`\b(?:nota|mensaje|aviso|instrucción|instruccion)\s+(?:para|al|a\s+los|a\s+las)\s+(?:el\s+|la\s+|los\s+|las\s+)?(?:asistentes?|agentes?|modelos?|ia|claude|bots?)\b` +
			`|\b(?:querid[oa]s?|estimad[oa]s?|hola|atención|atencion)\s*,?\s+(?:el\s+|la\s+)?(?:asistentes?|agentes?|modelos?|ia|claude|bots?)\b` +
			`|(?:^|[\n.!?]\s*)(?:al\s+|a\s+los\s+)?(?:asistentes?|agentes?|modelos?|ia|claude)\s*[,:!]\s*[^\n]*?\b(?:tú|tu|usted|debes|deben|debéis|siempre|nunca|no|desde\s+ahora|a\s+partir|cuando|el\s+usuario|ignora|ignoren|ejecuta|ejecuten|borra|borren|elimina|sube|suban|aprueba|olvida|olviden|llama|salta|omite)\b` +
			`|\bsi\s+eres\s+(?:un|una)\s+(?:ia|asistente|agente|modelo|bot)\b` +
			`|\bcuando\s+(?:leas|leáis|lean)\s+esto\b`)},
	{`authority claimed for the agent ("the user has authorized you")`, []string{"user", "owner", "human", "admin", "developer", "usuario", "you have", "you now have", "you are given", "tienes", "tenéis", "tienen"}, shortReach, regexp.MustCompile(
		`\b(?:the\s+)?(?:user|owner|human|admin|developer)\s+(?:has\s+|have\s+|already\s+|explicitly\s+)*(?:authori[sz]ed|approved|allowed|permitted|consented|pre-approved|given\s+(?:you\s+)?(?:permission|consent))\b[^.\n]*?\b(?:you|agents?|assistants?|to\s+(?:skip|bypass|push|merge|delete|remove|deploy|run|execute|disable|forget|ignore|approve|share|send|reveal|force))\b` +
			`|\byou\s+(?:have|now\s+have|are\s+given)\s+(?:full\s+|the\s+user's\s+)?(?:permission|authori[sz]ation|consent|clearance)\s+to\b` +
			`|\bel\s+usuario\s+(?:ya\s+)?(?:te\s+|os\s+|les\s+)?(?:ha|han)\s+(?:autorizado|aprobado|permitido|dado\s+permiso)\b[^.\n]*?\b(?:te|os|les|a\s+(?:saltar|omitir|borrar|eliminar|ejecutar|desplegar|subir|enviar|revelar|hacer\s+push|fusionar|ignorar|olvidar))\b` +
			`|\b(?:tienes|tenéis|tienen)\s+(?:todo\s+el\s+)?permiso\s+(?:para|de)\b`)},
	{`a request to push to main`, []string{"main", "master", "prod", "trunk", "producci"}, shortReach, regexp.MustCompile(
		`(?:^|[\n.!?;:]\s*|\b(?:always|just|please|simply)\s+|\b(?:you|agents?)\s+(?:can|may|should|must|are\s+(?:allowed|free|expected)\s+to)\s+)(?:force-?\s*push|push|merge|commit)\b[^.\n]*?\b(?:to|into|on)\s+(?:the\s+)?(?:main|master|prod|production|trunk)\b` +
			`|\b(?:push|merge|commit)\s+(?:directly|straight)\s+(?:to|into)\s+(?:main|master)\s+without\b` +
			`|(?:^|[\n.!?;:]\s*|\b(?:siempre|puedes|pueden|debes|deben|podéis|debéis)\s+)(?:haz|hagan|haced|hacer|sube|suban|subid|subir|empuja|empujen|fusiona|fusionen|fusionar|mergea)\s+(?:un\s+)?(?:push\s+|merge\s+|commit\s+|los\s+cambios\s+)?(?:directo\s+|directamente\s+)?(?:a|en)\s+(?:main|master|producción|produccion)\b`)},
	{`a request to skip review`, []string{"skip", "bypass", "disable", "avoid", "ignor", "no need", "no review", "without", "salta", "sáltate", "saltate", "omit", "evita", "sin "}, shortReach, regexp.MustCompile(
		`(?:^|[\n.!?;:]\s*|\b(?:always|just|please|simply)\s+|\b(?:you|agents?)\s+(?:can|may|should|must|are\s+(?:allowed|free|expected)\s+to)\s+)(?:skip|bypass|disable|avoid|ignore)\s+(?:the\s+|all\s+|any\s+)?(?:code\s+|pr\s+|human\s+)?(?:reviews?|approvals?|branch\s+protection|ci\s+checks|pre-commit\s+hooks|hooks)\b` +
			`|\bno\s+(?:need\s+(?:for|to\s+wait\s+for)|review\s+(?:is\s+)?(?:needed|required))\s+(?:a\s+|the\s+|any\s+)?(?:code\s+)?reviews?\b` +
			`|\bwithout\s+(?:any\s+|a\s+)?(?:code\s+|human\s+)?(?:review|approval)s?\b[^.\n]*?\b(?:to|into)\s+(?:main|master|prod|production)\b` +
			`|(?:^|[\n.!?;:]\s*|\b(?:puedes|pueden|debes|deben)\s+)(?:sáltate|saltate|salta|saltar|omite|omitir|evita|evitar|ignora|ignorar)\s+(?:la\s+|las\s+|toda\s+)?(?:revisión|revision|revisiones|aprobación|aprobacion)\b` +
			`|\bsin\s+(?:esperar\s+)?(?:la\s+|ninguna\s+)?(?:revisión|revision|aprobación|aprobacion)\b[^.\n]*?\b(?:a|en)\s+(?:main|master|producción|produccion)\b`)},
	{`a request to call the memory's tools ("call forget_memory")`, []string{"forget_memory", "mark_outdated", "delete_memory", "forget tool", "mark outdated"}, shortReach, regexp.MustCompile(
		`\b(?:call|run|use|invoke|execute|trigger|llama\s+a|ejecuta|usa|invoca|utiliza)\s+(?:the\s+|la\s+|el\s+)?(?:tool\s+|herramienta\s+)?` + "`?" + `(?:forget_memory|mark_outdated|delete_memory|forget|mark\s+outdated)` + "`?" + `(?:\s+tool|\s+herramienta)?\s+(?:on|for|with|against|to|en|con|sobre|para|a)\b` +
			`|\b(?:forget_memory|mark_outdated)\s*\(\s*(?:id\s*[:=]\s*)?["']?[0-9a-f]{8,}`)},
	{`a request to forget other memories`, []string{"memor"}, shortReach, regexp.MustCompile(
		`\b(?:forget|delete|remove|wipe|erase|purge)\s+(?:all\s+(?:the\s+)?(?:other\s+)?|every\s+(?:other\s+)?|the\s+other\s+|other\s+|any\s+other\s+|the\s+rest\s+of\s+the\s+)(?:stored\s+|saved\s+)?memor(?:y|ies)\b` +
			`|\b(?:olvida|olviden|borra|borren|elimina|eliminen|purga)\s+(?:todas\s+)?(?:las\s+)?(?:demás\s+|demas\s+|otras\s+)?memorias\b`)},

	// 5. Chat-template tokens.
	{`a chat-template token such as "<|im_start|>"`, []string{"<|", "[inst]", "[/inst]", "<<sys>>", "<start_of_turn>", "<end_of_turn>"}, shortReach, regexp.MustCompile(
		`<\|\s*[^|<>\n]{1,40}?\s*\|>|\[/?inst\]|<</?sys>>|<(?:start|end)_of_turn>`)},
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
//
//  2. Re-addressing: it speaks to the agent in the second person with a
//     standing order or a new identity ("you are now …", "from now on you
//     must …", "a partir de ahora debes …"). This is how "From now on we
//     deploy on Fridays" (we: the team, a fact about the project) differs
//     from "From now on you must deploy on Fridays" (you: whoever reads
//     this, an order to every future agent). A memory states facts and
//     preferences about a person or a project ("the user prefers pnpm"); it
//     is not a place to leave orders for whoever comes next.
//
//  3. Secrecy from the user: "do not tell the user", "without telling the
//     user", "no le digas al usuario". Nothing a person saves about
//     themselves or their project needs hiding from them.
//
//  4. Remote code or data leaving: a download piped into a shell
//     ("curl … | sh", "bash <(wget …)"), "exfiltrate", or sending secrets,
//     credentials, the conversation or memory to a URL. The pipe to a shell
//     is held whoever it is addressed to: a memory is replayed into agents
//     that run commands, and it is the standard payload for steering one.
//     A person who wants to remember an installer can save its URL.
//
//  5. Chat-template tokens (<|im_start|>, [INST], <<SYS>>): they have no
//     business in a note and exist only to fake a conversation turn.
//
//  6. An address to the agent reading it: "Assistant, when you read
//     this…", "Dear Claude, the user has authorized…", "Nota para el
//     asistente…", "Agentes: desde ahora…", "if you are an AI…"; a claim
//     that the user authorised the reader to act; a request to skip review
//     or push to main ("push directly to main", "sáltate la revisión"); a
//     request to call the memory's own tools on other memories ("call
//     forget_memory on…").
//
// Matching runs on the lower-cased text with curly apostrophes folded, so
// "Ignore ALL previous instructions" and "don’t tell the user" match, and
// then on the views a deliberate disguise is undone in (see
// [Instructions]).
func instructionsIn(text string) (reason string, ok bool) {
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
	if label, ok := contextMarkup(lower); ok {
		return "reads like an instruction to agents (" + label + ")", true
	}
	return "", false
}

// Instructions reports whether text reads like instructions aimed at an AI
// agent (a prompt injection) rather than memory about a person or a
// project, and if so why, e.g. `reads like an instruction to agents
// ("ignore previous instructions")`. The reason names the pattern, never the
// text. See instructionsIn for the shapes it holds.
//
// It looks at the text as written and as a reader sees it: invisible
// characters removed, confusables and width folded, entities and URL
// escapes decoded, emphasis dropped (see fold); with letters spaced out to
// hide a word ("i g n o r e", "I.G.N.O.R.E") closed up; and with base64 of
// plausible length decoded.
func Instructions(text string) (reason string, ok bool) {
	return instructionsViews(text, 0)
}

func instructionsViews(text string, depth int) (string, bool) {
	if r, ok := instructionsIn(text); ok {
		return r, true
	}
	f := fold(text)
	if f.text != text {
		if r, ok := instructionsIn(f.text); ok {
			return r, true
		}
	}
	if c, changed := closeUp(f.text); changed {
		if r, ok := instructionsIn(c); ok {
			return r, true
		}
	}
	if depth >= maxDecodeDep {
		return "", false
	}
	reason, found := "", false
	base64Runs(f.text, func(_, _ int, decoded string) {
		if !found {
			reason, found = instructionsViews(decoded, depth+1)
		}
	})
	return reason, found
}

// closeUp joins runs of single letters spaced out into words: "i g n o r e
// a l l" becomes "ignore all", and so do "i.g.n.o.r.e", "i\tg\tn…" and
// letters two spaces apart with words three apart. In a run, the gap most
// of its letters are split by is the letters' gap and is dropped; any other
// gap (wider, or of another kind) is a word break and becomes one space. It
// reports whether it changed anything.
func closeUp(t string) (string, bool) {
	var b strings.Builder
	changed := false
	for i := 0; i < len(t); {
		letters, gaps := spacedRun(t, i)
		if len(letters) < 3 {
			b.WriteByte(t[i])
			i++
			continue
		}
		gap := commonGap(gaps)
		for k, at := range letters {
			b.WriteByte(t[at])
			if k < len(gaps) && gaps[k] != gap {
				b.WriteByte(' ')
			}
		}
		changed = true
		i = letters[len(letters)-1] + 1
	}
	return b.String(), changed
}

// spacedRun returns the run of single letters or digits starting at t[i],
// each apart from the next by a short gap of separators (space, tab, line
// break, '.', '-', '_', '*'): the letters' offsets and the gaps between them.
func spacedRun(t string, i int) (letters []int, gaps []string) {
	single := func(k int) bool {
		return k < len(t) && isAlnum(t[k]) && (k == 0 || !isAlnum(t[k-1])) && (k+1 >= len(t) || !isAlnum(t[k+1]))
	}
	if !single(i) {
		return nil, nil
	}
	letters = append(letters, i)
	for k := i + 1; ; {
		j := k
		for j < len(t) && j-k < 4 && strings.IndexByte(" \t\n.-_*", t[j]) >= 0 {
			j++
		}
		if j == k || !single(j) {
			return letters, gaps
		}
		gaps = append(gaps, t[k:j])
		letters = append(letters, j)
		k = j + 1
	}
}

// commonGap is the gap that occurs most often, the shortest on a tie.
func commonGap(gaps []string) string {
	count := map[string]int{}
	best := ""
	for _, g := range gaps {
		count[g]++
		if best == "" || count[g] > count[best] || count[g] == count[best] && len(g) < len(best) {
			best = g
		}
	}
	return best
}
