<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
    <context>
        <name>ABDialog</name>
        <message>
            <location filename="../app/ui/tools/ab_dialog.py" line="101" />
            <source>acceptance {rate}</source>
            <translation>Akzeptanz {rate}</translation>
        </message>
    </context>
    <context>
        <name>DrafterKindName</name>
        <message>
            <location filename="../app/ui/threads/jobs.py" line="35" />
            <source>model</source>
            <translation>Modell</translation>
        </message>
        <message>
            <location filename="../app/ui/threads/jobs.py" line="36" />
            <source>hybrid</source>
            <translation>Hybrid</translation>
        </message>
        <message>
            <location filename="../app/ui/threads/jobs.py" line="37" />
            <source>ngram</source>
            <translation>N-Gramm</translation>
        </message>
        <message>
            <location filename="../app/ui/threads/jobs.py" line="38" />
            <source>none</source>
            <translation>keiner</translation>
        </message>
    </context>
    <context>
        <name>PreflightNote</name>
        <message>
            <location filename="../app/engine/bench/preflight.py" line="97" />
            <source>no draft model: acceptance is not measured; the n-gram break-even says what lookup needs</source>
            <translation>kein Draft-Modell: Die Akzeptanz wird nicht gemessen; der N-Gramm-Break-even sagt, was Lookup bräuchte</translation>
        </message>
    </context>
    <context>
        <name>PreflightTable</name>
        <message>
            <location filename="../app/ui/tools/preflight_dialog.py" line="237" />
            <source>{target} + {draft}</source>
            <translation>{target} + {draft}</translation>
        </message>
        <message>
            <location filename="../app/ui/tools/preflight_dialog.py" line="240" />
            <source>target, 1 token: {target} ms   draft, 1 token: {draft} ms</source>
            <translation>Zielmodell, 1 Token: {target} ms   Draft, 1 Token: {draft} ms</translation>
        </message>
        <message>
            <location filename="../app/ui/tools/preflight_dialog.py" line="244" />
            <source>{target} (no draft model)</source>
            <translation>{target} (kein Draft-Modell)</translation>
        </message>
        <message>
            <location filename="../app/ui/tools/preflight_dialog.py" line="245" />
            <source>target, 1 token: {target} ms</source>
            <translation>Zielmodell, 1 Token: {target} ms</translation>
        </message>
        <message>
            <location filename="../app/ui/tools/preflight_dialog.py" line="252" />
            <source>verify cost of n tokens in one batch (× one token): {ratios}</source>
            <translation>Prüfkosten für n Tokens in einem Batch (× ein Token): {ratios}</translation>
        </message>
        <message>
            <location filename="../app/ui/tools/preflight_dialog.py" line="258" />
            <source>agreement {agreement}; acceptance per draft position: {rates}</source>
            <translation>Übereinstimmung {agreement}; Akzeptanz je Draft-Position: {rates}</translation>
        </message>
        <message>
            <location filename="../app/ui/tools/preflight_dialog.py" line="266" />
            <source>K</source>
            <translation>K</translation>
        </message>
        <message>
            <location filename="../app/ui/tools/preflight_dialog.py" line="267" />
            <source>E[tokens/step]</source>
            <translation>E[Tokens/Schritt]</translation>
        </message>
        <message>
            <location filename="../app/ui/tools/preflight_dialog.py" line="268" />
            <source>step ms</source>
            <translation>Schritt ms</translation>
        </message>
        <message>
            <location filename="../app/ui/tools/preflight_dialog.py" line="269" />
            <source>tok/s</source>
            <translation>tok/s</translation>
        </message>
        <message>
            <location filename="../app/ui/tools/preflight_dialog.py" line="270" />
            <source>speedup</source>
            <translation>Beschleunigung</translation>
        </message>
        <message>
            <location filename="../app/ui/tools/preflight_dialog.py" line="283" />
            <source>← best</source>
            <translation>← am besten</translation>
        </message>
        <message>
            <location filename="../app/ui/tools/preflight_dialog.py" line="292" />
            <source>note: {note}</source>
            <translation>Hinweis: {note}</translation>
        </message>
    </context>
</TS>