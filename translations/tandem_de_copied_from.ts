<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
    <context>
        <name>TokenCards</name>
        <message>
            <location filename="../app/ui/chat/view/token_cards.py" line="50" />
            <source>earlier in this chat</source>
            <translation>weiter oben in diesem Chat</translation>
        </message>
        <message>
            <location filename="../app/ui/chat/view/token_cards.py" line="53" />
            <source>{name}, p. {page}</source>
            <translation>{name}, S. {page}</translation>
        </message>
        <message>
            <location filename="../app/ui/chat/view/token_cards.py" line="60" />
            <source>model</source>
            <translation>Modell</translation>
        </message>
        <message>
            <location filename="../app/ui/chat/view/token_cards.py" line="61" />
            <source>lookup</source>
            <translation>Lookup</translation>
        </message>
    </context>
</TS>
