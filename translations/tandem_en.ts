<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>AttachmentFlow</name>
    <message numerus="yes">
        <source>{name}: {tokens} tokens, does not fit: %n passage(s) will be retrieved per question</source>
        <translation>
            <numerusform>{name}: {tokens} tokens, does not fit: %n passage will be retrieved per question</numerusform>
            <numerusform>{name}: {tokens} tokens, does not fit: %n passages will be retrieved per question</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ChatController</name>
    <message numerus="yes">
        <source>%n older message(s) did not fit in the {n_ctx}-token context and were left out of this reply</source>
        <translation>
            <numerusform>%n older message did not fit in the {n_ctx}-token context and was left out of this reply</numerusform>
            <numerusform>%n older messages did not fit in the {n_ctx}-token context and were left out of this reply</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ChatSearch</name>
    <message numerus="yes">
        <source>%n message(s)</source>
        <translation>
            <numerusform>%n message</numerusform>
            <numerusform>%n messages</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ContextGauge</name>
    <message numerus="yes">
        <source>⚠ the %n oldest message(s){start} were left out to fit the {total}-token context</source>
        <translation>
            <numerusform>⚠ the oldest message{start} was left out to fit the {total}-token context</numerusform>
            <numerusform>⚠ the %n oldest messages{start} were left out to fit the {total}-token context</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>⚠ the %n oldest message(s){start} would be left out to fit the {total}-token context</source>
        <translation>
            <numerusform>⚠ the oldest message{start} would be left out to fit the {total}-token context</numerusform>
            <numerusform>⚠ the %n oldest messages{start} would be left out to fit the {total}-token context</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ServerChoice</name>
    <message numerus="yes">
        <source>&lt;b&gt;{kind}&lt;/b&gt;, %n model(s)</source>
        <translation>
            <numerusform>&lt;b&gt;{kind}&lt;/b&gt;, %n model</numerusform>
            <numerusform>&lt;b&gt;{kind}&lt;/b&gt;, %n models</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>PrefixCacheBox</name>
    <message numerus="yes">
        <source>%1 in %n saved state(s)</source>
        <translation>
            <numerusform>%1 in %n saved state</numerusform>
            <numerusform>%1 in %n saved states</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n pair(s)</source>
        <translation>
            <numerusform>%n pair</numerusform>
            <numerusform>%n pairs</numerusform>
        </translation>
    </message>
</context>
</TS>
