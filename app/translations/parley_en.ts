<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>DevicesModel</name>
    <message numerus="yes">
        <source>%n frames dropped · {xruns} xruns · {gaps} s output gaps</source>
        <translation>
            <numerusform>%n frame dropped · {xruns} xruns · {gaps} s output gaps</numerusform>
            <numerusform>%n frames dropped · {xruns} xruns · {gaps} s output gaps</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MetersPanel</name>
    <message numerus="yes">
        <source>{name}: {used}/{capacity} · %n wrap(s) · {size} MiB</source>
        <translation>
            <numerusform>{name}: {used}/{capacity} · %n wrap · {size} MiB</numerusform>
            <numerusform>{name}: {used}/{capacity} · %n wraps · {size} MiB</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ModelManagerDialog</name>
    <message numerus="yes">
        <source>partly downloaded (%n files missing)</source>
        <translation>
            <numerusform>partly downloaded (%n file missing)</numerusform>
            <numerusform>partly downloaded (%n files missing)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Removed {name} (%n files).</source>
        <translation>
            <numerusform>Removed {name} (%n file).</numerusform>
            <numerusform>Removed {name} (%n files).</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RecordVoiceDialog</name>
    <message numerus="yes">
        <source>Recording... %n s more at least.</source>
        <translation>
            <numerusform>Recording... %n s more at least.</numerusform>
            <numerusform>Recording... %n s more at least.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>TurnSentences</name>
    <message numerus="yes">
        <source>The interpreter heard %n seconds of speech.</source>
        <translation>
            <numerusform>The interpreter heard %n second of speech.</numerusform>
            <numerusform>The interpreter heard %n seconds of speech.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The interpreter spoke for %n seconds.</source>
        <translation>
            <numerusform>The interpreter spoke for %n second.</numerusform>
            <numerusform>The interpreter spoke for %n seconds.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>You spoke for %n seconds.</source>
        <translation>
            <numerusform>You spoke for %n second.</numerusform>
            <numerusform>You spoke for %n seconds.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The assistant spoke for %n seconds.</source>
        <translation>
            <numerusform>The assistant spoke for %n second.</numerusform>
            <numerusform>The assistant spoke for %n seconds.</numerusform>
        </translation>
    </message>
</context>
</TS>
