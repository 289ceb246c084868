<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
    <context>
        <name>MemoryNotes</name>
        <message>
            <source>no GPU backend in this build: run setup again with TANDEM_GPU=vulkan (any GPU) or TANDEM_GPU=cuda (NVIDIA)</source>
            <translation>kein GPU-Backend in diesem Build: Setup erneut mit TANDEM_GPU=vulkan (jede GPU) oder TANDEM_GPU=cuda (NVIDIA) ausführen</translation>
        </message>
        <message>
            <source>TANDEM_GPU_DEVICE={named}: this build lists no device that takes layers</source>
            <translation>TANDEM_GPU_DEVICE={named}: dieser Build nennt kein Gerät, das Schichten aufnimmt</translation>
        </message>
        <message>
            <source>CPU only: {why}</source>
            <translation>nur CPU: {why}</translation>
        </message>
        <message>
            <source>unknown (this llama.cpp build does not list its backends)</source>
            <translation>unbekannt (dieser llama.cpp-Build nennt seine Backends nicht)</translation>
        </message>
        <message>
            <source>{gpus} (GPU) and CPU</source>
            <translation>{gpus} (GPU) und CPU</translation>
        </message>
        <message>
            <source>{label} (llama.cpp's default, the first of {count}: it splits layers over all of them and Tandem plans for this one; TANDEM_GPU_DEVICE=NAME uses one alone)</source>
            <translation>{label} (llama.cpps Vorgabe, die erste von {count}: llama.cpp verteilt die Schichten auf alle, Tandem plant für diese; TANDEM_GPU_DEVICE=NAME nutzt eine allein)</translation>
        </message>
        <message>
            <source>{label} (TANDEM_GPU_DEVICE={named} names no device of this build: the default is used)</source>
            <translation>{label} (TANDEM_GPU_DEVICE={named} nennt kein Gerät dieses Builds: die Vorgabe gilt)</translation>
        </message>
        <message>
            <source>{label} (named by TANDEM_GPU_DEVICE; it holds every GPU layer)</source>
            <translation>{label} (mit TANDEM_GPU_DEVICE gewählt; sie hält alle GPU-Schichten)</translation>
        </message>
        <message>
            <source>{label} (the only one llama.cpp lists)</source>
            <translation>{label} (die einzige, die llama.cpp nennt)</translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message>
            <source>llama.cpp: {backends}</source>
            <translation>llama.cpp: {backends}</translation>
        </message>
    </context>
    <context>
        <name>MemoryMeter</name>
        <message>
            <source>GPU: {device}</source>
            <translation>GPU: {device}</translation>
        </message>
        <message>
            <source>llama.cpp backends: {backends}</source>
            <translation>llama.cpp-Backends: {backends}</translation>
        </message>
    </context>
</TS>
