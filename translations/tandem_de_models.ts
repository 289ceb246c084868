<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="de">
    <context>
        <name>HubErrors</name>
        <message>
            <location filename="../app/engine/hub/auth.py" line="19"/>
            <source>Settings → Hugging Face token in the window, HF_TOKEN or --token</source>
            <translation>Einstellungen → Hugging-Face-Token im Fenster, HF_TOKEN oder --token</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/auth.py" line="31"/>
            <source> (the Hub answered {status}: {message})</source>
            <translation> (der Hub antwortete {status}: {message})</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/auth.py" line="34"/>
            <source> (the Hub answered {status})</source>
            <translation> (der Hub antwortete {status})</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/auth.py" line="40"/>
            <source>this repository</source>
            <translation>dieses Repository</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/auth.py" line="43"/>
            <source>{name} is gated: accept its licence at {endpoint}/{name} while logged in, then pass a token of that account; the token given was not granted access{hub_says}</source>
            <translation>{name} ist zugangsbeschränkt: Akzeptieren Sie die Lizenz angemeldet unter {endpoint}/{name} und geben Sie dann ein Token dieses Kontos an; das angegebene Token hat keinen Zugang erhalten{hub_says}</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/auth.py" line="50"/>
            <source>{name} is gated: accept its licence at {endpoint}/{name} while logged in, then pass a token ({places}){hub_says}</source>
            <translation>{name} ist zugangsbeschränkt: Akzeptieren Sie die Lizenz angemeldet unter {endpoint}/{name} und geben Sie dann ein Token an ({places}){hub_says}</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/auth.py" line="60"/>
            <source>the Hub refused the Hugging Face token as invalid{hub_says}: correct or remove it ({places}); tokens are at {endpoint}/settings/tokens</source>
            <translation>der Hub hat das Hugging-Face-Token als ungültig abgelehnt{hub_says}: Korrigieren oder entfernen Sie es ({places}); Tokens finden Sie unter {endpoint}/settings/tokens</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/download.py" line="90"/>
            <source>download of {name} cancelled; {done:,} bytes are kept for a later resume</source>
            <translation>Download von {name} abgebrochen; {done:,} Bytes bleiben für eine spätere Fortsetzung erhalten</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/download.py" line="94"/>
            <source>download of {name} cancelled</source>
            <translation>Download von {name} abgebrochen</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/download.py" line="106"/>
            <location filename="../app/engine/hub/search.py" line="68"/>
            <source>repository {repo} was not found on {endpoint} (if it is private, pass a token)</source>
            <translation>das Repository {repo} wurde auf {endpoint} nicht gefunden (geben Sie ein Token an, wenn es privat ist)</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/download.py" line="120"/>
            <location filename="../app/engine/hub/search.py" line="86"/>
            <source>cannot reach {endpoint} ({error}); check the network connection or HF_ENDPOINT</source>
            <translation>{endpoint} ist nicht erreichbar ({error}); prüfen Sie die Netzwerkverbindung oder HF_ENDPOINT</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/download.py" line="134"/>
            <source>offline mode is on (HF_HUB_OFFLINE) and {name} is not on this computer yet; unset HF_HUB_OFFLINE to download it</source>
            <translation>der Offline-Modus ist an (HF_HUB_OFFLINE) und {name} ist noch nicht auf diesem Rechner; entfernen Sie HF_HUB_OFFLINE, um es herunterzuladen</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/download.py" line="146"/>
            <source>the disk is full: {folder} has {free} free while writing {name}; free some space and download again ({done:,} bytes are kept and the download will resume)</source>
            <translation>der Datenträger ist voll: {folder} hat beim Schreiben von {name} noch {free} frei; schaffen Sie Platz und laden Sie erneut herunter ({done:,} Bytes bleiben erhalten und der Download wird fortgesetzt)</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/download.py" line="159"/>
            <source>not enough disk space for {name}: it needs {needed} more but {folder} has {free} free</source>
            <translation>nicht genug Speicherplatz für {name}: Es braucht {needed} mehr, aber {folder} hat {free} frei</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/download.py" line="221"/>
            <source>the server stopped after {done:,} of {total:,} bytes</source>
            <translation>der Server hat nach {done:,} von {total:,} Bytes aufgehört</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/download.py" line="232"/>
            <source>the connection keeps failing ({error}); {kept:,} bytes are kept: download again to resume</source>
            <translation>die Verbindung bricht immer wieder ab ({error}); {kept:,} Bytes bleiben erhalten: Laden Sie erneut herunter, um fortzusetzen</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/download.py" line="249"/>
            <source>{name} arrived with {actual:,} bytes instead of {size:,}; it was deleted, try again</source>
            <translation>{name} kam mit {actual:,} statt {size:,} Bytes an; die Datei wurde gelöscht, versuchen Sie es erneut</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/download.py" line="265"/>
            <source>{name} did not match its SHA-256 checksum; it was deleted, download it again</source>
            <translation>{name} stimmte nicht mit seiner SHA-256-Prüfsumme überein; die Datei wurde gelöscht, laden Sie sie erneut herunter</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/download.py" line="380"/>
            <source>{name} is already being downloaded by another window or process</source>
            <translation>{name} wird bereits von einem anderen Fenster oder Prozess heruntergeladen</translation>
        </message>
        <message>
            <location filename="../app/engine/hub/search.py" line="98"/>
            <source>offline mode is on (HF_HUB_OFFLINE): {what} needs the network</source>
            <translation>der Offline-Modus ist an (HF_HUB_OFFLINE): {what} braucht das Netzwerk</translation>
        </message>
    </context>
    <context>
        <name>MemoryNotes</name>
        <message>
            <location filename="../app/core/memory/estimate.py" line="273"/>
            <source>a model</source>
            <translation>ein Modell</translation>
        </message>
        <message>
            <location filename="../app/core/memory/estimate.py" line="275"/>
            <source>{name}: sizes from catalog totals, split evenly over layers</source>
            <translation>{name}: Größen aus den Katalogsummen, gleichmäßig auf die Schichten verteilt</translation>
        </message>
        <message>
            <location filename="../app/core/memory/estimate.py" line="284"/>
            <source>GPU figures follow llama.cpp's rules but were not measured on this machine</source>
            <translation>Die GPU-Werte folgen den Regeln von llama.cpp, wurden aber auf diesem Rechner nicht gemessen</translation>
        </message>
        <message>
            <location filename="../app/core/memory/offload.py" line="88"/>
            <source>auto: too little free GPU memory for any layer, so every layer stays on the CPU</source>
            <translation>automatisch: zu wenig freier GPU-Speicher für eine Schicht, daher bleiben alle Schichten auf der CPU</translation>
        </message>
        <message>
            <location filename="../app/core/memory/offload.py" line="88"/>
            <source>auto: {target} of {target_slots} target layers, {draft} of {draft_slots} draft layers on the GPU</source>
            <translation>automatisch: {target} von {target_slots} Schichten des Zielmodells, {draft} von {draft_slots} Schichten des Draft-Modells auf der GPU</translation>
        </message>
        <message>
            <location filename="../app/core/memory/offload.py" line="97"/>
            <source>auto: {target} of {target_slots} target layers on the GPU</source>
            <translation>automatisch: {target} von {target_slots} Schichten des Zielmodells auf der GPU</translation>
        </message>
        <message>
            <location filename="../app/engine/memory/plan.py" line="29"/>
            <source>this llama.cpp build cannot offload to a GPU: the GPU layer settings are ignored, as llama.cpp would</source>
            <translation>dieser llama.cpp-Build kann nicht auf eine GPU auslagern: Die Einstellungen für GPU-Schichten werden ignoriert, wie llama.cpp es tun würde</translation>
        </message>
        <message>
            <location filename="../app/engine/memory/measure.py" line="256"/>
            <source>RSS grew by {size:,} bytes since loading</source>
            <translation>Der RSS ist seit dem Laden um {size:,} Bytes gewachsen</translation>
        </message>
    </context>
    <context>
        <name>MemorySizes</name>
        <message>
            <location filename="../app/core/display/units.py" line="38"/>
            <source>{size:.2f} TiB</source>
            <translation>{size:.2f} TiB</translation>
        </message>
        <message>
            <location filename="../app/core/display/units.py" line="39"/>
            <source>{size:.2f} GiB</source>
            <translation>{size:.2f} GiB</translation>
        </message>
        <message>
            <location filename="../app/core/display/units.py" line="40"/>
            <source>{size:.0f} MiB</source>
            <translation>{size:.0f} MiB</translation>
        </message>
        <message>
            <location filename="../app/core/display/units.py" line="41"/>
            <source>{size:.0f} KiB</source>
            <translation>{size:.0f} KiB</translation>
        </message>
        <message>
            <location filename="../app/core/display/units.py" line="44"/>
            <source>{rate:.1f} TiB/s</source>
            <translation>{rate:.1f} TiB/s</translation>
        </message>
        <message>
            <location filename="../app/core/display/units.py" line="45"/>
            <source>{rate:.1f} GiB/s</source>
            <translation>{rate:.1f} GiB/s</translation>
        </message>
        <message>
            <location filename="../app/core/display/units.py" line="46"/>
            <source>{rate:.1f} MiB/s</source>
            <translation>{rate:.1f} MiB/s</translation>
        </message>
        <message>
            <location filename="../app/core/display/units.py" line="47"/>
            <source>{rate:.1f} KiB/s</source>
            <translation>{rate:.1f} KiB/s</translation>
        </message>
        <message>
            <location filename="../app/core/display/units.py" line="56"/>
            <source>{size:.0f} B</source>
            <translation>{size:.0f} B</translation>
        </message>
        <message>
            <location filename="../app/core/display/units.py" line="64"/>
            <source>{rate:.0f} B/s</source>
            <translation>{rate:.0f} B/s</translation>
        </message>
    </context>
    <context>
        <name>MemoryVerdict</name>
        <message>
            <location filename="../app/core/memory/verdict.py" line="118"/>
            <source>{device}: {needed} needed, no budget known</source>
            <translation>{device}: {needed} benötigt, kein Budget bekannt</translation>
        </message>
        <message>
            <location filename="../app/core/memory/verdict.py" line="124"/>
            <source>{device}: {needed} of {budget} ({status})</source>
            <translation>{device}: {needed} von {budget} ({status})</translation>
        </message>
        <message>
            <location filename="../app/core/memory/verdict.py" line="138"/>
            <source>fits</source>
            <translation>passt</translation>
        </message>
        <message>
            <location filename="../app/core/memory/verdict.py" line="139"/>
            <source>tight</source>
            <translation>knapp</translation>
        </message>
        <message>
            <location filename="../app/core/memory/verdict.py" line="140"/>
            <source>does not fit</source>
            <translation>passt nicht</translation>
        </message>
        <message>
            <location filename="../app/core/memory/verdict.py" line="141"/>
            <source>unknown</source>
            <translation>unbekannt</translation>
        </message>
        <message>
            <location filename="../app/core/memory/verdict.py" line="143"/>
            <source>{earlier}; {next}</source>
            <translation>{earlier}; {next}</translation>
        </message>
        <message>
            <location filename="../app/core/memory/verdict.py" line="144"/>
            <source>{text}</source>
            <translation>{text}</translation>
        </message>
        <message>
            <location filename="../app/core/memory/verdict.py" line="196"/>
            <source>no usable GPU ({reason}); set GPU layers to 0 for both models</source>
            <translation>keine nutzbare GPU ({reason}); setzen Sie die GPU-Schichten für beide Modelle auf 0</translation>
        </message>
        <message>
            <location filename="../app/core/memory/verdict.py" line="244"/>
            <source>keep the draft fully on the GPU; it is read for every drafted token</source>
            <translation>lassen Sie das Draft-Modell ganz auf der GPU; es wird für jeden vorgeschlagenen Token gelesen</translation>
        </message>
        <message>
            <location filename="../app/core/memory/verdict.py" line="254"/>
            <source>offload {layers} of {slots} target layers (--ngl {layers})</source>
            <translation>{layers} von {slots} Schichten des Zielmodells auslagern (--ngl {layers})</translation>
        </message>
        <message>
            <location filename="../app/core/memory/verdict.py" line="284"/>
            <source>reduce context to {n_ctx}</source>
            <translation>Kontext auf {n_ctx} verkleinern</translation>
        </message>
        <message>
            <location filename="../app/core/memory/verdict.py" line="294"/>
            <source>use the n-gram drafter: it needs no memory (saves {size})</source>
            <translation>den N-Gramm-Drafter verwenden: Er braucht keinen Speicher (spart {size})</translation>
        </message>
    </context>
    <context>
        <name>ModelFileErrors</name>
        <message>
            <location filename="../app/engine/gguf/header.py" line="74"/>
            <source>{name} is not a GGUF model file (only {size} bytes)</source>
            <translation>{name} ist keine GGUF-Modelldatei (nur {size} Bytes)</translation>
        </message>
        <message>
            <location filename="../app/engine/gguf/header.py" line="152"/>
            <source>{name} is truncated: its header ends early (at byte {size:,})</source>
            <translation>{name} ist abgeschnitten: Der Header endet zu früh (bei Byte {size:,})</translation>
        </message>
        <message>
            <location filename="../app/engine/gguf/header.py" line="269"/>
            <source>model file not found: {path}</source>
            <translation>Modelldatei nicht gefunden: {path}</translation>
        </message>
        <message>
            <location filename="../app/engine/gguf/header.py" line="271"/>
            <source>not a file: {path}</source>
            <translation>keine Datei: {path}</translation>
        </message>
        <message>
            <location filename="../app/engine/gguf/header.py" line="280"/>
            <source>cannot read {path}: {error}</source>
            <translation>{path} kann nicht gelesen werden: {error}</translation>
        </message>
        <message>
            <location filename="../app/engine/gguf/header.py" line="306"/>
            <source>{name} is not a GGUF model file (it starts with {magic}, not b'GGUF')</source>
            <translation>{name} ist keine GGUF-Modelldatei (sie beginnt mit {magic}, nicht mit b'GGUF')</translation>
        </message>
        <message>
            <location filename="../app/engine/gguf/header.py" line="315"/>
            <source>{name} is GGUF version {version}; Tandem reads versions 2 and 3</source>
            <translation>{name} ist GGUF-Version {version}; Tandem liest die Versionen 2 und 3</translation>
        </message>
    </context>
    <context>
        <name>ModelInstall</name>
        <message>
            <location filename="../app/engine/models/packaged.py" line="27"/>
            <source>assembling {name}</source>
            <translation>setze {name} zusammen</translation>
        </message>
        <message>
            <location filename="../app/engine/models/packaged.py" line="113"/>
            <source>fetching {name}</source>
            <translation>hole {name}</translation>
        </message>
        <message>
            <location filename="../app/engine/models/packaged.py" line="156"/>
            <source>quantising {name}</source>
            <translation>quantisiere {name}</translation>
        </message>
    </context>
    <context>
        <name>ModelLibrary</name>
        <message>
            <location filename="../app/ui/models/library.py" line="177"/>
            <source>connecting</source>
            <translation>verbinde</translation>
        </message>
        <message>
            <location filename="../app/ui/models/library.py" line="178"/>
            <source>downloading</source>
            <translation>lade herunter</translation>
        </message>
        <message>
            <location filename="../app/ui/models/library.py" line="179"/>
            <source>verifying</source>
            <translation>prüfe</translation>
        </message>
        <message>
            <location filename="../app/ui/models/library.py" line="180"/>
            <source>done</source>
            <translation>fertig</translation>
        </message>
        <message>
            <location filename="../app/ui/models/library.py" line="181"/>
            <source>fetching</source>
            <translation>hole</translation>
        </message>
        <message>
            <location filename="../app/ui/models/library.py" line="182"/>
            <source>assembling</source>
            <translation>setze zusammen</translation>
        </message>
        <message>
            <location filename="../app/ui/models/library.py" line="183"/>
            <source>quantising</source>
            <translation>quantisiere</translation>
        </message>
    </context>
    <context>
        <name>PairingReasons</name>
        <message>
            <location filename="../app/core/pairing/catalog.py" line="326"/>
            <source>size unknown</source>
            <translation>Größe unbekannt</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/catalog.py" line="329"/>
            <source>not smaller than the target: cannot speed it up</source>
            <translation>nicht kleiner als das Zielmodell: kann es nicht beschleunigen</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/catalog.py" line="331"/>
            <source>about the target's size: little to gain</source>
            <translation>etwa so groß wie das Zielmodell: wenig zu gewinnen</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/catalog.py" line="335"/>
            <source>1/{denominator}</source>
            <translation>1/{denominator}</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/catalog.py" line="337"/>
            <source>{ratio:.0%}</source>
            <translation>{ratio:.0%}</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/catalog.py" line="340"/>
            <source>{fraction} of the target's size (small: fast, but accepted less often)</source>
            <translation>{fraction} der Größe des Zielmodells (klein: schnell, aber seltener akzeptiert)</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/catalog.py" line="344"/>
            <source>{fraction} of the target's size (large: each draft token costs more)</source>
            <translation>{fraction} der Größe des Zielmodells (groß: jeder Draft-Token kostet mehr)</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/catalog.py" line="348"/>
            <source>{fraction} of the target's size</source>
            <translation>{fraction} der Größe des Zielmodells</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/default_draft.py" line="107"/>
            <source>no compatible draft model for this target: N-gram lookup instead (no second model)</source>
            <translation>kein kompatibles Draft-Modell für dieses Zielmodell: stattdessen N-Gramm-Lookup (kein zweites Modell)</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/default_draft.py" line="114"/>
            <source>no compatible draft is smaller than the target ({names} would not speed it up): N-gram lookup instead (no second model)</source>
            <translation>kein kompatibles Draft-Modell ist kleiner als das Zielmodell ({names} würde es nicht beschleunigen): stattdessen N-Gramm-Lookup (kein zweites Modell)</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/on_disk.py" line="56"/>
            <source>already on disk as {name}</source>
            <translation>schon auf der Festplatte als {name}</translation>
        </message>
        <message>
            <location filename="../app/engine/models/drafts.py" line="59"/>
            <location filename="../app/engine/models/find_draft.py" line="284"/>
            <source>same family ({family})</source>
            <translation>dieselbe Familie ({family})</translation>
        </message>
        <message>
            <location filename="../app/engine/models/drafts.py" line="79"/>
            <source>models folder</source>
            <translation>Modellordner</translation>
        </message>
        <message>
            <location filename="../app/engine/models/drafts.py" line="80"/>
            <source>added</source>
            <translation>hinzugefügt</translation>
        </message>
        <message>
            <location filename="../app/engine/models/drafts.py" line="81"/>
            <source>Hugging Face cache</source>
            <translation>Hugging-Face-Cache</translation>
        </message>
        <message>
            <location filename="../app/engine/models/drafts.py" line="82"/>
            <source>llama.cpp cache</source>
            <translation>llama.cpp-Cache</translation>
        </message>
        <message>
            <location filename="../app/engine/models/drafts.py" line="89"/>
            <source>{rule}: {detail}</source>
            <translation>{rule}: {detail}</translation>
        </message>
        <message>
            <location filename="../app/engine/models/drafts.py" line="93"/>
            <source>incompatible: {problem} (+{more} more)</source>
            <translation>inkompatibel: {problem} (+{more} weitere)</translation>
        </message>
        <message>
            <location filename="../app/engine/models/drafts.py" line="96"/>
            <source>incompatible: {problem}</source>
            <translation>inkompatibel: {problem}</translation>
        </message>
        <message>
            <location filename="../app/engine/models/drafts.py" line="103"/>
            <location filename="../app/ui/models/pair_picker.py" line="409"/>
            <source>compatible</source>
            <translation>kompatibel</translation>
        </message>
        <message>
            <location filename="../app/engine/models/drafts.py" line="105"/>
            <source>compatible by its tokenizer facts</source>
            <translation>kompatibel nach den Angaben zum Tokenizer</translation>
        </message>
        <message>
            <location filename="../app/engine/models/drafts.py" line="119"/>
            <source>on disk ({source})</source>
            <translation>auf der Festplatte ({source})</translation>
        </message>
        <message>
            <location filename="../app/engine/models/drafts.py" line="141"/>
            <source>download {size} from {where}</source>
            <translation>{size} von {where} herunterladen</translation>
        </message>
        <message>
            <location filename="../app/engine/models/find_draft.py" line="207"/>
            <source>faster</source>
            <translation>schneller</translation>
        </message>
        <message>
            <location filename="../app/engine/models/find_draft.py" line="209"/>
            <source>slower than the target alone</source>
            <translation>langsamer als das Zielmodell allein</translation>
        </message>
        <message>
            <location filename="../app/engine/models/find_draft.py" line="211"/>
            <source>predicted {speedup:.2f}x ({verdict}) at K={k}: a draft token costs {cost:.0%} of a target token, acceptance assumed {acceptance:.0%}</source>
            <translation>vorhergesagt {speedup:.2f}x ({verdict}) bei K={k}: Ein Draft-Token kostet {cost:.0%} eines Tokens des Zielmodells, angenommene Akzeptanz {acceptance:.0%}</translation>
        </message>
        <message>
            <location filename="../app/engine/models/find_draft.py" line="276"/>
            <source>download {size}</source>
            <translation>{size} herunterladen</translation>
        </message>
    </context>
    <context>
        <name>PairingRules</name>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="93"/>
            <source>vocabulary type</source>
            <translation>Vokabulartyp</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="94"/>
            <source>vocabulary size</source>
            <translation>Vokabulargröße</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="95"/>
            <source>token text</source>
            <translation>Tokentext</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="96"/>
            <source>tokenizer family</source>
            <translation>Tokenizer-Familie</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="97"/>
            <source>{name} handling</source>
            <translation>Umgang mit {name}</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="98"/>
            <source>{name} token</source>
            <translation>{name}-Token</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="99"/>
            <source>{earlier}; {next}</source>
            <translation>{earlier}; {next}</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="105"/>
            <location filename="../app/core/pairing/compatibility.py" line="109"/>
            <source>{text}</source>
            <translation>{text}</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="119"/>
            <source>the target uses a {target} tokenizer, the draft a {draft} one</source>
            <translation>das Zielmodell verwendet einen {target}-Tokenizer, das Draft-Modell einen {draft}-Tokenizer</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="130"/>
            <source>the target adds {name}, the draft does not add it</source>
            <translation>das Zielmodell fügt {name} hinzu, das Draft-Modell nicht</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="132"/>
            <source>the target does not add {name}, the draft adds it</source>
            <translation>das Zielmodell fügt {name} nicht hinzu, das Draft-Modell schon</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="139"/>
            <source>{name} is token {target} in the target but {draft} in the draft</source>
            <translation>{name} ist im Zielmodell Token {target}, im Draft-Modell aber {draft}</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="149"/>
            <source>the target has {target:,} tokens and the draft {draft:,}: {difference:,} apart, more than {most}</source>
            <translation>das Zielmodell hat {target:,} Tokens und das Draft-Modell {draft:,}: {difference:,} Unterschied, mehr als {most}</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="161"/>
            <source>pre-tokenizers differ ({target} vs {draft}); drafting still works because the draft reads the target's token ids</source>
            <translation>die Prä-Tokenizer unterscheiden sich ({target} gegenüber {draft}); das Drafting funktioniert trotzdem, weil das Draft-Modell die Token-IDs des Zielmodells liest</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="178"/>
            <source>token {id} is {target} in the target but {draft} in the draft</source>
            <translation>Token {id} ist im Zielmodell {target}, im Draft-Modell aber {draft}</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="185"/>
            <source>{examples} ({total:,} tokens differ in all)</source>
            <translation>{examples} (insgesamt unterscheiden sich {total:,} Tokens)</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="350"/>
            <source>the target uses the {target} pre-tokenizer and the draft {draft}: different vocabularies</source>
            <translation>das Zielmodell verwendet den Prä-Tokenizer {target} und das Draft-Modell {draft}: verschiedene Vokabulare</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="357"/>
            <source>token texts not compared yet: they are checked once both files are on this computer</source>
            <translation>Tokentexte noch nicht verglichen: Sie werden geprüft, sobald beide Dateien auf diesem Rechner sind</translation>
        </message>
        <message>
            <location filename="../app/core/pairing/compatibility.py" line="370"/>
            <source>the vocabularies differ within ids {low:,}-{high:,}</source>
            <translation>die Vokabulare unterscheiden sich innerhalb der IDs {low:,}-{high:,}</translation>
        </message>
    </context>
    <context>
        <name>WelcomePanel</name>
        <message>
            <location filename="../app/ui/models/welcome_panel.py" line="215"/>
            <source>&lt;b&gt;Could not finish:&lt;/b&gt; {error}</source>
            <translation>&lt;b&gt;Konnte nicht abgeschlossen werden:&lt;/b&gt; {error}</translation>
        </message>
    </context>
</TS>