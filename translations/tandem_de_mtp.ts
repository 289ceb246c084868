<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
    <context>
        <name>PairPicker</name>
        <message>
            <location filename="../app/ui/models/pair_picker.py" />
            <source>MTP layers</source>
            <translation>MTP-Schichten</translation>
        </message>
        <message>
            <location filename="../app/ui/models/pair_picker.py" />
            <source>the model's own MTP layers propose tokens; no second file</source>
            <translation>die eigenen MTP-Schichten des Modells schlagen Tokens vor; keine zweite Datei</translation>
        </message>
        <message>
            <location filename="../app/ui/models/pair_picker.py" />
            <source>this model carries no MTP layers: choose a draft model, n-gram lookup or none</source>
            <translation>dieses Modell hat keine MTP-Schichten: wähle ein Entwurfsmodell, N-Gramm-Suche oder keinen</translation>
        </message>
        <message>
            <location filename="../app/ui/models/pair_picker.py" />
            <source>&lt;b&gt;✓ The model's own MTP layers&lt;/b&gt;: {why}</source>
            <translation>&lt;b&gt;✓ Die eigenen MTP-Schichten des Modells&lt;/b&gt;: {why}</translation>
        </message>
        <message>
            <location filename="../app/ui/models/pair_picker.py" />
            <source>&lt;b&gt;✗ No MTP layers to draft with&lt;/b&gt;: {why}</source>
            <translation>&lt;b&gt;✗ Keine MTP-Schichten zum Entwerfen&lt;/b&gt;: {why}</translation>
        </message>
    </context>
    <context>
        <name>SettingsPanel</name>
        <message>
            <location filename="../app/ui/settings/panel.py" />
            <source>The model's own MTP layers</source>
            <translation>Die eigenen MTP-Schichten des Modells</translation>
        </message>
    </context>
    <context>
        <name>ReplyInfo</name>
        <message>
            <location filename="../app/ui/chat/reply/info.py" />
            <source>the model's own MTP layers</source>
            <translation>die eigenen MTP-Schichten des Modells</translation>
        </message>
    </context>
    <context>
        <name>DrafterKindName</name>
        <message>
            <location filename="../app/ui/threads/jobs.py" />
            <source>mtp</source>
            <translation>MTP</translation>
        </message>
    </context>
    <context>
        <name>PairLoadErrors</name>
        <message>
            <location filename="../app/engine/llama/session.py" />
            <source>{target} has no MTP layers to draft with (choose a draft model, the n-gram drafter or none)</source>
            <translation>{target} hat keine MTP-Schichten zum Entwerfen (wähle ein Entwurfsmodell, den N-Gramm-Drafter oder keinen)</translation>
        </message>
        <message>
            <location filename="../app/engine/llama/session.py" />
            <source>{target} cannot draft with its own layers: {why}</source>
            <translation>{target} kann nicht mit seinen eigenen Schichten entwerfen: {why}</translation>
        </message>
    </context>
    <context>
        <name>LlamaModel</name>
        <message>
            <location filename="../app/engine/llama/model.py" />
            <source>this model keeps a recurrent state, and an image earlier in the chat cannot be read into it again: start a new chat for another question about it</source>
            <translation>dieses Modell hält einen rekurrenten Zustand, und ein Bild weiter oben im Chat lässt sich nicht erneut einlesen: für eine weitere Frage dazu einen neuen Chat beginnen</translation>
        </message>
    </context>
</TS>
