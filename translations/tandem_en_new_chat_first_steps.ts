<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>ShapeLine</name>
    <message numerus="yes">
        <source>%n tool(s)</source>
        <translation>
            <numerusform>%n tool</numerusform>
            <numerusform>%n tools</numerusform>
        </translation>
    </message>
</context>
</TS>
