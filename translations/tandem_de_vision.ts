<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
    <context>
        <name>Vision</name>
        <message>
            <location filename="../app/engine/llama/vision.py" line="46" />
            <source>{model} cannot read images: no projector (mmproj*.gguf) is beside it or chosen</source>
            <translation>{model} kann keine Bilder lesen: neben dem Modell liegt kein Projektor (mmproj*.gguf), und keiner ist gewählt</translation>
        </message>
        <message>
            <location filename="../app/engine/llama/vision.py" line="48" />
            <source>llama.cpp could not load {name} as a projector for {model}</source>
            <translation>llama.cpp konnte {name} nicht als Projektor für {model} laden</translation>
        </message>
        <message>
            <location filename="../app/engine/llama/vision.py" line="49" />
            <source>{name} places images on a 2-D grid (M-RoPE), which Tandem does not read yet</source>
            <translation>{name} legt Bilder auf ein 2-D-Raster (M-RoPE), das Tandem noch nicht liest</translation>
        </message>
        <message>
            <location filename="../app/engine/llama/vision.py" line="50" />
            <source>{name} is a projector for sound, not images</source>
            <translation>{name} ist ein Projektor für Ton, nicht für Bilder</translation>
        </message>
        <message>
            <location filename="../app/engine/llama/vision.py" line="51" />
            <source>{name} is not a PNG or JPEG image</source>
            <translation>{name} ist kein PNG- oder JPEG-Bild</translation>
        </message>
        <message>
            <location filename="../app/engine/llama/vision.py" line="52" />
            <source>{name} could not be read as an image: it is damaged or truncated</source>
            <translation>{name} konnte nicht als Bild gelesen werden: die Datei ist beschädigt oder abgeschnitten</translation>
        </message>
        <message>
            <location filename="../app/engine/llama/vision.py" line="53" />
            <source>{name} is too big to read as an image ({size}; at most {limit})</source>
            <translation>{name} ist zu groß, um als Bild gelesen zu werden ({size}; höchstens {limit})</translation>
        </message>
        <message>
            <location filename="../app/engine/llama/vision.py" line="55" />
            <source>{name} is too big to read as an image ({width} x {height} pixels; at most {limit} million)</source>
            <translation>{name} ist zu groß, um als Bild gelesen zu werden ({width} x {height} Pixel; höchstens {limit} Millionen)</translation>
        </message>
    </context>
    <context>
        <name>ImageChip</name>
        <message>
            <location filename="../app/ui/chat/attachments/images.py" />
            <source>image {name}</source>
            <translation>Bild {name}</translation>
        </message>
        <message>
            <location filename="../app/ui/chat/attachments/images.py" />
            <source>remove this image</source>
            <translation>dieses Bild entfernen</translation>
        </message>
        <message>
            <location filename="../app/ui/chat/attachments/images.py" />
            <source>Remove {name}</source>
            <translation>{name} entfernen</translation>
        </message>
    </context>
    <context>
        <name>PendingImages</name>
        <message>
            <location filename="../app/ui/chat/attachments/images.py" />
            <source>pasted image</source>
            <translation>eingefügtes Bild</translation>
        </message>
        <message>
            <location filename="../app/ui/chat/attachments/images.py" />
            <source>A message carries at most {n} images: {name} was not added</source>
            <translation>Eine Nachricht trägt höchstens {n} Bilder: {name} wurde nicht hinzugefügt</translation>
        </message>
        <message>
            <location filename="../app/ui/chat/attachments/images.py" />
            <source>could not read the file: {error}</source>
            <translation>die Datei ließ sich nicht lesen: {error}</translation>
        </message>
    </context>
    <context>
        <name>ProjectorRow</name>
        <message>
            <location filename="../app/ui/models/projector_row.py" line="1" />
            <source>choose the target's vision projector (an mmproj GGUF file)</source>
            <translation>den Bildprojektor des Zielmodells wählen (eine mmproj-GGUF-Datei)</translation>
        </message>
        <message>
            <location filename="../app/ui/models/projector_row.py" line="1" />
            <source>use the projector beside the model again</source>
            <translation>wieder den Projektor neben dem Modell verwenden</translation>
        </message>
        <message>
            <location filename="../app/ui/models/projector_row.py" line="1" />
            <source>{name} (chosen)</source>
            <translation>{name} (gewählt)</translation>
        </message>
        <message>
            <location filename="../app/ui/models/projector_row.py" line="1" />
            <source>{name} (beside the model)</source>
            <translation>{name} (neben dem Modell)</translation>
        </message>
        <message>
            <location filename="../app/ui/models/projector_row.py" line="1" />
            <source>none: pictures are refused</source>
            <translation>keiner: Bilder werden abgelehnt</translation>
        </message>
        <message>
            <location filename="../app/ui/models/projector_row.py" line="1" />
            <source>Choose a vision projector</source>
            <translation>Bildprojektor wählen</translation>
        </message>
        <message>
            <location filename="../app/ui/models/projector_row.py" line="1" />
            <source>GGUF files (*.gguf)</source>
            <translation>GGUF-Dateien (*.gguf)</translation>
        </message>
        <message>
            <location filename="../app/ui/models/projector_row.py" line="1" />
            <source>{name} is not a vision projector (an mmproj GGUF)</source>
            <translation>{name} ist kein Bildprojektor (keine mmproj-GGUF-Datei)</translation>
        </message>
    </context>
    <context>
        <name>PairPicker</name>
        <message>
            <location filename="../app/ui/models/pair_picker.py" line="1" />
            <source>Images</source>
            <translation>Bilder</translation>
        </message>
    </context>
</TS>
