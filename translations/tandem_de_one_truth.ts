<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
    <context>
        <name>PairPicker</name>
        <message>
            <source>this chat's drafter, as in Settings ▸ Drafter</source>
            <translation>der Drafter dieses Chats, wie unter Einstellungen ▸ Drafter</translation>
        </message>
    </context>
</TS>
