<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
    <context>
        <name>AdaptiveReason</name>
        <message>
            <location filename="../app/core/adaptive/controller.py" line="96" />
            <source>not asked yet</source>
            <translation>noch nicht gefragt</translation>
        </message>
        <message>
            <location filename="../app/core/adaptive/controller.py" line="97" />
            <source>measuring what a draft costs: K={k} until it is known</source>
            <translation>misst, was ein Draft kostet: K={k}, bis es bekannt ist</translation>
        </message>
        <message>
            <location filename="../app/core/adaptive/controller.py" line="98" />
            <source>a plain step, to measure what one target token costs</source>
            <translation>ein einfacher Schritt, um zu messen, was ein Token des Zielmodells kostet</translation>
        </message>
        <message>
            <location filename="../app/core/adaptive/controller.py" line="99" />
            <source>expected speed best at K={k} (acceptance {acceptance:.2f}, draft {draft_ms:.0f} ms/token, verify {verify_ms:.0f} ms)</source>
            <translation>erwartete Geschwindigkeit am besten bei K={k} (Akzeptanz {acceptance:.2f}, Draft {draft_ms:.0f} ms/Token, Prüfen {verify_ms:.0f} ms)</translation>
        </message>
        <message>
            <location filename="../app/core/adaptive/controller.py" line="104" />
            <source>drafting off: even a fully accepted draft could not pay for itself</source>
            <translation>Drafting aus: Selbst ein vollständig angenommener Draft würde sich nicht lohnen</translation>
        </message>
        <message>
            <location filename="../app/core/adaptive/controller.py" line="105" />
            <source>drafting off: the draft costs more than it saves</source>
            <translation>Drafting aus: Der Draft kostet mehr, als er spart</translation>
        </message>
        <message>
            <location filename="../app/core/adaptive/controller.py" line="106" />
            <source>a probe at K={k}: drafting is off, checking whether it pays again</source>
            <translation>eine Probe bei K={k}: Drafting ist aus, es wird geprüft, ob es sich wieder lohnt</translation>
        </message>
        <message>
            <location filename="../app/core/adaptive/controller.py" line="107" />
            <source>the draft model stays off: reading the {backlog} tokens it missed (~{read_s:.1f} s) would cost more than its plan saves in the {remaining} tokens left (~{saved_s:.1f} s)</source>
            <translation>das Draft-Modell bleibt aus: Die {backlog} verpassten Tokens zu lesen (~{read_s:.1f} s) kostete mehr, als sein Plan in den {remaining} verbleibenden Tokens spart (~{saved_s:.1f} s)</translation>
        </message>
        <message>
            <location filename="../app/core/adaptive/controller.py" line="113" />
            <source>fixed at {length}</source>
            <translation>fest auf {length}</translation>
        </message>
    </context>
    <context>
        <name>BenchVerdict</name>
        <message>
            <location filename="../app/core/bench/verdict.py" line="24" />
            <source>not measured: a run is missing</source>
            <translation>nicht gemessen: ein Lauf fehlt</translation>
        </message>
        <message>
            <location filename="../app/core/bench/verdict.py" line="25" />
            <source>no difference measured: the drafter proposed no tokens</source>
            <translation>kein Unterschied gemessen: Der Drafter hat keine Tokens vorgeschlagen</translation>
        </message>
        <message>
            <location filename="../app/core/bench/verdict.py" line="26" />
            <source>no difference measured: one run per side measures no spread (repeat the runs)</source>
            <translation>kein Unterschied gemessen: Ein Lauf pro Seite misst keine Streuung (wiederholen Sie die Läufe)</translation>
        </message>
        <message>
            <location filename="../app/core/bench/verdict.py" line="29" />
            <source>no difference measured: the difference is within the run-to-run spread</source>
            <translation>kein Unterschied gemessen: Der Unterschied liegt innerhalb der Streuung zwischen Läufen</translation>
        </message>
        <message>
            <location filename="../app/core/bench/verdict.py" line="32" />
            <source>{ratio:.2f}× faster with the drafter</source>
            <translation>{ratio:.2f}× schneller mit dem Drafter</translation>
        </message>
        <message>
            <location filename="../app/core/bench/verdict.py" line="33" />
            <source>{ratio:.2f}× slower with the drafter</source>
            <translation>{ratio:.2f}× langsamer mit dem Drafter</translation>
        </message>
        <message>
            <location filename="../app/core/bench/verdict.py" line="35" />
            <source>{median:.1f} {unit} ({low:.1f}–{high:.1f}, 1 run)</source>
            <translation>{median:.1f} {unit} ({low:.1f}–{high:.1f}, 1 Lauf)</translation>
        </message>
        <message>
            <location filename="../app/core/bench/verdict.py" line="36" />
            <source>{median:.1f} {unit} ({low:.1f}–{high:.1f}, {count} runs)</source>
            <translation>{median:.1f} {unit} ({low:.1f}–{high:.1f}, {count} Läufe)</translation>
        </message>
        <message>
            <location filename="../app/core/bench/verdict.py" line="38" />
            <source>no sweep points to compare yet</source>
            <translation>noch keine Messpunkte zum Vergleichen</translation>
        </message>
        <message>
            <location filename="../app/core/bench/verdict.py" line="39" />
            <source>exact verification and sample-and-match keep the same acceptance at T={t:g}</source>
            <translation>exakte Prüfung und Sample-and-Match behalten bei T={t:g} dieselbe Akzeptanz</translation>
        </message>
        <message>
            <location filename="../app/core/bench/verdict.py" line="40" />
            <source>exact verification keeps {points} points more acceptance than sample-and-match at T={t:g}</source>
            <translation>exakte Prüfung behält bei T={t:g} {points} Prozentpunkte mehr Akzeptanz als Sample-and-Match</translation>
        </message>
        <message>
            <location filename="../app/core/bench/verdict.py" line="43" />
            <source>sample-and-match keeps {points} points more acceptance than exact verification at T={t:g}</source>
            <translation>Sample-and-Match behält bei T={t:g} {points} Prozentpunkte mehr Akzeptanz als die exakte Prüfung</translation>
        </message>
    </context>
    <context>
        <name>PreflightAdvice</name>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="64" />
            <source>verifying {n} tokens costs {ratio:.1f}x one target token</source>
            <translation>{n} Tokens zu prüfen kostet {ratio:.1f}x ein Token des Zielmodells</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="65" />
            <source>verifying {n} tokens costs {ratio:.1f}x one target token and a draft token costs {share:.0%} of one</source>
            <translation>{n} Tokens zu prüfen kostet {ratio:.1f}x ein Token des Zielmodells, und ein Draft-Token kostet {share:.0%} davon</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="69" />
            <source>prompt lookup (n-gram) pays at K={k} only where its acceptance exceeds {rate:.0%}</source>
            <translation>Prompt-Lookup (N-Gramm) lohnt sich bei K={k} nur, wo seine Akzeptanz {rate:.0%} übersteigt</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="72" />
            <source>prompt lookup cannot pay either</source>
            <translation>Prompt-Lookup kann sich auch nicht lohnen</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="73" />
            <source>no draft model to measure; {physics}; {lookup}.</source>
            <translation>kein Draft-Modell zu messen; {physics}; {lookup}.</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="74" />
            <source>draft {k} tokens per step: predicted {speedup:.2f}x ({rate:.1f} vs {base:.1f} tok/s); {physics}.</source>
            <translation>{k} Tokens pro Schritt draften: vorhergesagt {speedup:.2f}x ({rate:.1f} gegenüber {base:.1f} tok/s); {physics}.</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="78" />
            <source>do not draft on this machine: {why} ({physics}); {lookup}.</source>
            <translation>auf diesem Rechner nicht draften: {why} ({physics}); {lookup}.</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="79" />
            <source>even a draft accepted in full would be slower</source>
            <translation>selbst ein vollständig angenommener Draft wäre langsamer</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="80" />
            <source>acceptance is too low to pay for the draft</source>
            <translation>die Akzeptanz ist zu gering, um den Draft zu bezahlen</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="82" />
            <source>measured</source>
            <translation>gemessen</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="83" />
            <source>estimated from its weights' bytes, acceptance assumed unchanged</source>
            <translation>aus den Bytes seiner Gewichte geschätzt, Akzeptanz als unverändert angenommen</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="84" />
            <source>a Q4_0 copy of the draft (output layer Q4_0 too) costs {saving:.0%} less per token ({how}); predicted best {best:.2f}x at K={k} against {current:.2f}x at K={current_k} now</source>
            <translation>eine Q4_0-Kopie des Draft-Modells (auch die Ausgabeschicht in Q4_0) kostet {saving:.0%} weniger pro Token ({how}); vorhergesagt bestenfalls {best:.2f}x bei K={k} gegenüber jetzt {current:.2f}x bei K={current_k}</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="89" />
            <source>{prediction}: not worth it on this machine.</source>
            <translation>{prediction}: lohnt sich auf diesem Rechner nicht.</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="90" />
            <source>{prediction}: choose {name} as the draft.</source>
            <translation>{prediction}: Wählen Sie {name} als Draft-Modell.</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="91" />
            <source>{prediction}: worth making (`preflight --cheaper-draft` makes it once and measures it).</source>
            <translation>{prediction}: lohnt sich (`preflight --cheaper-draft` erstellt sie einmal und misst sie).</translation>
        </message>
    </context>
    <context>
        <name>PreflightStage</name>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="58" />
            <source>acceptance</source>
            <translation>Akzeptanz</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="59" />
            <source>verify cost</source>
            <translation>Prüfkosten</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="60" />
            <source>done</source>
            <translation>fertig</translation>
        </message>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="61" />
            <source>cheaper draft</source>
            <translation>günstigeres Draft-Modell</translation>
        </message>
    </context>
    <context>
        <name>StepWords</name>
        <message>
            <location filename="../app/core/reply/step_words.py" line="29" />
            <source>first</source>
            <translation>erste</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="30" />
            <source>second</source>
            <translation>zweite</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="31" />
            <source>third</source>
            <translation>dritte</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="32" />
            <source>fourth</source>
            <translation>vierte</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="33" />
            <source>fifth</source>
            <translation>fünfte</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="34" />
            <source>sixth</source>
            <translation>sechste</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="35" />
            <source>seventh</source>
            <translation>siebte</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="36" />
            <source>eighth</source>
            <translation>achte</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="37" />
            <source>ninth</source>
            <translation>neunte</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="38" />
            <source>tenth</source>
            <translation>zehnte</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="40" />
            <source>token {n}</source>
            <translation>Token {n}</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="41" />
            <source>1 token</source>
            <translation>1 Token</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="42" />
            <source>{n} tokens</source>
            <translation>{n} Tokens</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="44" />
            <source>Prompt lookup copied {tokens} from earlier text.</source>
            <translation>Prompt-Lookup hat {tokens} aus früherem Text kopiert.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="45" />
            <source>Prompt lookup copied {tokens} after a match of {match} from earlier text.</source>
            <translation>Prompt-Lookup hat nach einer Übereinstimmung von {match} {tokens} aus früherem Text kopiert.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="48" />
            <source>The draft proposed {tokens}.</source>
            <translation>Der Draft schlug {tokens} vor.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="51" />
            <source>The target agreed with all {n} (p &gt;= q).</source>
            <translation>Das Zielmodell stimmte allen {n} zu (p &gt;= q).</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="52" />
            <source>The target agreed with the first {n} (p &gt;= q).</source>
            <translation>Das Zielmodell stimmte den ersten {n} zu (p &gt;= q).</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="53" />
            <source>The target agreed with it (p &gt;= q).</source>
            <translation>Das Zielmodell stimmte ihm zu (p &gt;= q).</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="54" />
            <source>The target agreed with the first (p &gt;= q).</source>
            <translation>Das Zielmodell stimmte dem ersten zu (p &gt;= q).</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="55" />
            <source>The target kept all {n}: each one's coin fell below its min(1, p/q).</source>
            <translation>Das Zielmodell behielt alle {n}: Die Münze jedes einzelnen fiel unter sein min(1, p/q).</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="56" />
            <source>The target kept the first {n}: each one's coin fell below its min(1, p/q).</source>
            <translation>Das Zielmodell behielt die ersten {n}: Die Münze jedes einzelnen fiel unter sein min(1, p/q).</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="59" />
            <source>The target kept it: each one's coin fell below its min(1, p/q).</source>
            <translation>Das Zielmodell behielt es: Seine Münze fiel unter sein min(1, p/q).</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="60" />
            <source>The target kept the first: each one's coin fell below its min(1, p/q).</source>
            <translation>Das Zielmodell behielt das erste: Seine Münze fiel unter sein min(1, p/q).</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="62" />
            <source>The {ordinal}, {token}, had p = {p:.2f} against q = {q:.2f}: kept with probability {chance:.2f}, rejected.</source>
            <translation>Das {ordinal}, {token}, hatte p = {p:.2f} gegenüber q = {q:.2f}: mit Wahrscheinlichkeit {chance:.2f} behalten, abgelehnt.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="66" />
            <source>The {ordinal}, {token}, had p = {p:.2f} against q = {q:.2f}: kept with probability {chance:.2f}, the coin drew {coin:.2f}, rejected.</source>
            <translation>Das {ordinal}, {token}, hatte p = {p:.2f} gegenüber q = {q:.2f}: mit Wahrscheinlichkeit {chance:.2f} behalten, die Münze zeigte {coin:.2f}, abgelehnt.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="71" />
            <source>The target then drew {token} (probability {p:.2f} in the residual) from what it wanted and the draft did not offer.</source>
            <translation>Das Zielmodell zog dann {token} (Wahrscheinlichkeit {p:.2f} im Rest) aus dem, was es wollte und der Draft nicht anbot.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="77" />
            <source>Each of all {n} was the target's most likely token, so the target kept them.</source>
            <translation>Jedes der {n} war das wahrscheinlichste Token des Zielmodells, also behielt das Zielmodell sie.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="80" />
            <source>Each of the first {n} was the target's most likely token, so the target kept them.</source>
            <translation>Jedes der ersten {n} war das wahrscheinlichste Token des Zielmodells, also behielt das Zielmodell sie.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="83" />
            <source>It was the target's most likely token, so the target kept it.</source>
            <translation>Es war das wahrscheinlichste Token des Zielmodells, also behielt das Zielmodell es.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="84" />
            <source>The first was the target's most likely token, so the target kept it.</source>
            <translation>Das erste war das wahrscheinlichste Token des Zielmodells, also behielt das Zielmodell es.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="85" />
            <source>The {ordinal}, {token} (p = {p:.2f}), was turned down: the target's most likely token was {top}, which the reply takes instead.</source>
            <translation>Das {ordinal}, {token} (p = {p:.2f}), wurde abgelehnt: Das wahrscheinlichste Token des Zielmodells war {top}, das die Antwort stattdessen übernimmt.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="90" />
            <source>The {ordinal}, {token} (p = {p:.2f}), was turned down: it was not the target's most likely token.</source>
            <translation>Das {ordinal}, {token} (p = {p:.2f}), wurde abgelehnt: Es war nicht das wahrscheinlichste Token des Zielmodells.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="94" />
            <source>The target then added its most likely next token, {token} (p = {p:.2f}), as a bonus.</source>
            <translation>Das Zielmodell fügte dann sein wahrscheinlichstes nächstes Token, {token} (p = {p:.2f}), als Bonus hinzu.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="97" />
            <source>The target then drew a bonus token, {token} (p = {p:.2f}), from its own distribution.</source>
            <translation>Das Zielmodell zog dann ein Bonus-Token, {token} (p = {p:.2f}), aus seiner eigenen Verteilung.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="101" />
            <source>Nothing was drafted this step.</source>
            <translation>In diesem Schritt wurde nichts gedraftet.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="102" />
            <source>Nothing was drafted this step ({reason}).</source>
            <translation>In diesem Schritt wurde nichts gedraftet ({reason}).</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="103" />
            <source>The target's most likely token was {token} (p = {p:.2f}).</source>
            <translation>Das wahrscheinlichste Token des Zielmodells war {token} (p = {p:.2f}).</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="104" />
            <source>The target drew {token} (p = {p:.2f}) on its own.</source>
            <translation>Das Zielmodell zog {token} (p = {p:.2f}) allein.</translation>
        </message>
        <message>
            <location filename="../app/core/reply/step_words.py" line="105" />
            <source>The reply ended within this step: it added {tokens}.</source>
            <translation>Die Antwort endete in diesem Schritt: Er fügte {tokens} hinzu.</translation>
        </message>
    </context>
</TS>
