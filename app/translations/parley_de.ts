<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>AudioIO</name>
    <message>
        <source>The audio device stopped responding; reconnecting...</source>
        <translation>Das Audiogerät reagiert nicht mehr; Verbindung wird wiederhergestellt...</translation>
    </message>
    <message>
        <source>Audio error: {problem}</source>
        <translation>Audiofehler: {problem}</translation>
    </message>
    <message>
        <source>Opening audio devices...</source>
        <translation>Audiogeräte werden geöffnet...</translation>
    </message>
    <message>
        <source>No audio device: {problem}</source>
        <translation>Kein Audiogerät: {problem}</translation>
    </message>
    <message>
        <source>Audio device reconnected.</source>
        <translation>Audiogerät wieder verbunden.</translation>
    </message>
    <message>
        <source>the microphone {name} is not available</source>
        <translation>das Mikrofon {name} ist nicht verfügbar</translation>
    </message>
    <message>
        <source>the speaker {name} is not available</source>
        <translation>der Lautsprecher {name} ist nicht verfügbar</translation>
    </message>
    <message>
        <source>there is no default microphone</source>
        <translation>es gibt kein Standardmikrofon</translation>
    </message>
    <message>
        <source>there is no default speaker</source>
        <translation>es gibt keinen Standardlautsprecher</translation>
    </message>
</context>
<context>
    <name>AudioMenu</name>
    <message>
        <source>&amp;Echo cancellation</source>
        <translation>&amp;Echounterdrückung</translation>
    </message>
    <message>
        <source>&amp;Noise suppression</source>
        <translation>&amp;Rauschunterdrückung</translation>
    </message>
    <message>
        <source>&amp;High-pass filter</source>
        <translation>&amp;Hochpassfilter</translation>
    </message>
    <message>
        <source>Automatic &amp;gain control</source>
        <translation>Automatische &amp;Verstärkungsregelung</translation>
    </message>
    <message>
        <source>Removes the assistant&apos;s voice from the microphone, so it can be used on speakers.</source>
        <translation>Entfernt die Stimme des Assistenten aus dem Mikrofon, damit Lautsprecher benutzt werden können.</translation>
    </message>
    <message>
        <source>Reduces steady background noise (fans, hum).</source>
        <translation>Verringert gleichmäßige Hintergrundgeräusche (Lüfter, Brummen).</translation>
    </message>
    <message>
        <source>Removes rumble below the voice.</source>
        <translation>Entfernt Rumpeln unterhalb der Stimme.</translation>
    </message>
    <message>
        <source>Evens out the microphone level (can raise what is left of the echo).</source>
        <translation>Gleicht den Mikrofonpegel aus (kann den Rest des Echos verstärken).</translation>
    </message>
    <message>
        <source>Microphone processing</source>
        <translation>Mikrofonverarbeitung</translation>
    </message>
</context>
<context>
    <name>Banner</name>
    <message>
        <source>Resume</source>
        <translation>Fortsetzen</translation>
    </message>
    <message>
        <source>Details...</source>
        <translation>Details...</translation>
    </message>
    <message>
        <source>The whole message, to read or to copy</source>
        <translation>Die ganze Meldung, zum Lesen oder Kopieren</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>Ausblenden</translation>
    </message>
    <message>
        <source>Hide this message (Esc)</source>
        <translation>Diese Meldung ausblenden (Esc)</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Details</translation>
    </message>
    <message>
        <source>Copy details</source>
        <translation>Details kopieren</translation>
    </message>
</context>
<context>
    <name>CaptionsModel</name>
    <message>
        <source>No caption model is on this machine: download {models} in the Model manager to see your words in your turns.</source>
        <translation>Auf diesem Rechner ist kein Untertitelmodell: Laden Sie {models} in der Modellverwaltung herunter, um Ihre Worte in Ihren Redebeiträgen zu sehen.</translation>
    </message>
    <message>
        <source>Loading the caption model {model}...</source>
        <translation>Das Untertitelmodell {model} wird geladen...</translation>
    </message>
    <message>
        <source>Captions of what you say: on ({model}).</source>
        <translation>Untertitel für das, was Sie sagen: an ({model}).</translation>
    </message>
</context>
<context>
    <name>ChatDialog</name>
    <message>
        <source>Your language model</source>
        <translation>Ihr Sprachmodell</translation>
    </message>
    <message>
        <source>Talk with a language model you run (Ollama, LM Studio, llama-server, vLLM): your speech is written by a speech to text, the model answers, and a Pocket TTS voice speaks its answer. Hold Talk while you speak.</source>
        <translation>Sprechen Sie mit einem Sprachmodell, das Sie selbst betreiben (Ollama, LM Studio, llama-server, vLLM): Eine Spracherkennung schreibt Ihre Worte, das Modell antwortet, und eine Pocket-TTS-Stimme spricht die Antwort. Halten Sie Sprechen gedrückt, während Sie sprechen.</translation>
    </message>
    <message>
        <source>Server &amp;address</source>
        <translation>Server-&amp;Adresse</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>&amp;Modell</translation>
    </message>
    <message>
        <source>Only where the server asks for one</source>
        <translation>Nur wenn der Server einen verlangt</translation>
    </message>
    <message>
        <source>&amp;Key</source>
        <translation>Schlüss&amp;el</translation>
    </message>
    <message>
        <source>Speech to te&amp;xt</source>
        <translation>Spracher&amp;kennung</translation>
    </message>
    <message>
        <source>A key is kept in your system&apos;s keyring, never in a file.</source>
        <translation>Ein Schlüssel wird im Schlüsselbund Ihres Systems aufbewahrt, nie in einer Datei.</translation>
    </message>
    <message>
        <source>Let it read the c&amp;lock (today&apos;s date and the time here)</source>
        <translation>Die &amp;Uhr lesen lassen (Datum und Uhrzeit hier)</translation>
    </message>
    <message>
        <source>Let it &amp;search your saved conversations</source>
        <translation>Ihre gespeicherten &amp;Gespräche durchsuchen lassen</translation>
    </message>
    <message>
        <source>&amp;Find running servers</source>
        <translation>Laufende Server &amp;finden</translation>
    </message>
    <message>
        <source>&amp;Talk with it</source>
        <translation>Mit ihm &amp;sprechen</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Looking for Ollama and LM Studio on this computer...</source>
        <translation>Suche nach Ollama und LM Studio auf diesem Computer...</translation>
    </message>
</context>
<context>
    <name>ChatLatency</name>
    <message>
        <source>{total} s (your last words {stt_flush} s, the language model {model_first_token} s, its first clause {clause_wait} s, the voice {voice_first_frame} s)</source>
        <translation>{total} s (Ihre letzten Worte {stt_flush} s, das Sprachmodell {model_first_token} s, sein erster Satzteil {clause_wait} s, die Stimme {voice_first_frame} s)</translation>
    </message>
    <message>
        <source>{split}: the median of the answers so far; 95th percentile {percentile} s</source>
        <translation>{split}: der Median der bisherigen Antworten; 95. Perzentil {percentile} s</translation>
    </message>
</context>
<context>
    <name>ChatMode</name>
    <message>
        <source>Your language model: {model} at {url}</source>
        <translation>Ihr Sprachmodell: {model} unter {url}</translation>
    </message>
    <message>
        <source>Give your language model server&apos;s address and the model&apos;s name.</source>
        <translation>Geben Sie die Adresse des Servers Ihres Sprachmodells und den Namen des Modells an.</translation>
    </message>
    <message>
        <source>A conversation with your language model needs a Pocket TTS voice: download one in the model manager (Model menu, Model manager).</source>
        <translation>Ein Gespräch mit Ihrem Sprachmodell braucht eine Pocket-TTS-Stimme: Laden Sie eine in der Modellverwaltung herunter (Menü Modell, Modellverwaltung).</translation>
    </message>
    <message>
        <source>{file} was spoken with the voice {voice} of {voice_model}, which is not on this machine: download it in the model manager (Model menu, Model manager), then open the conversation again.</source>
        <translation>{file} wurde mit der Stimme {voice} von {voice_model} gesprochen, die auf diesem Rechner nicht vorhanden ist: Laden Sie sie in der Modellverwaltung herunter (Menü Modell, Modellverwaltung) und öffnen Sie das Gespräch dann erneut.</translation>
    </message>
    <message>
        <source>Loading the speech models and asking {url} for {model}...</source>
        <translation>Die Sprachmodelle werden geladen und {url} wird nach {model} gefragt...</translation>
    </message>
    <message>
        <source>Talking with {model} at {server}: hold Talk while you speak.</source>
        <translation>Gespräch mit {model} auf {server}: Halten Sie Sprechen gedrückt, während Sie sprechen.</translation>
    </message>
    <message>
        <source>Listening: your turn ends when you pause, or when you release Talk.</source>
        <translation>Hört zu: Ihr Beitrag endet, wenn Sie eine Pause machen oder Sprechen loslassen.</translation>
    </message>
    <message>
        <source>Listening: release Talk when you are done.</source>
        <translation>Hört zu: Lassen Sie Sprechen los, wenn Sie fertig sind.</translation>
    </message>
    <message>
        <source>Hold Talk while you speak.</source>
        <translation>Halten Sie Sprechen gedrückt, während Sie sprechen.</translation>
    </message>
    <message>
        <source>Nothing was heard: hold Talk while you speak.</source>
        <translation>Es war nichts zu hören: Halten Sie Sprechen gedrückt, während Sie sprechen.</translation>
    </message>
    <message>
        <source>{model} answers...</source>
        <translation>{model} antwortet...</translation>
    </message>
    <message>
        <source>Exported audio: {path}</source>
        <translation>Audio exportiert: {path}</translation>
    </message>
    <message>
        <source>You spoke over the answer: it stopped, and keeps the words you heard.</source>
        <translation>Sie haben in die Antwort hineingesprochen: Sie hat aufgehört und behält die Worte, die Sie gehört haben.</translation>
    </message>
    <message>
        <source>Saved: {path}</source>
        <translation>Gespeichert: {path}</translation>
    </message>
    <message>
        <source>[It read the clock: {result}]</source>
        <translation>[Es hat die Uhr gelesen: {result}]</translation>
    </message>
    <message>
        <source>[It searched your conversations: {result}]</source>
        <translation>[Es hat Ihre Gespräche durchsucht: {result}]</translation>
    </message>
    <message>
        <source>[It asked for a tool Parley does not have ({name}): {result}]</source>
        <translation>[Es hat ein Werkzeug verlangt, das Parley nicht hat ({name}): {result}]</translation>
    </message>
    <message>
        <source>Hold Talk to answer.</source>
        <translation>Halten Sie Sprechen gedrückt, um zu antworten.</translation>
    </message>
    <message>
        <source>Hold Talk to answer. The voice began {latency} after you let go of Talk.</source>
        <translation>Halten Sie Sprechen gedrückt, um zu antworten. Die Stimme begann {latency} nachdem Sie Sprechen losgelassen haben.</translation>
    </message>
</context>
<context>
    <name>ChatServers</name>
    <message>
        <source> or </source>
        <translation> oder </translation>
    </message>
    <message>
        <source>No language model server is running here: start {where}, for example with `ollama serve` and `ollama pull llama3.2`, or give the address of your llama-server or vLLM.</source>
        <translation>Hier läuft kein Sprachmodell-Server: Starten Sie {where}, zum Beispiel mit `ollama serve` und `ollama pull llama3.2`, oder geben Sie die Adresse Ihres llama-server oder vLLM an.</translation>
    </message>
    <message>
        <source>{name} runs at {url} but offers no model: pull or load one (for example `ollama pull llama3.2`).</source>
        <translation>{name} läuft auf {url}, bietet aber kein Modell an: Laden Sie eines herunter oder laden Sie eines (zum Beispiel `ollama pull llama3.2`).</translation>
    </message>
    <message>
        <source>{name} runs at {url}: choose one of its models.</source>
        <translation>{name} läuft auf {url}: Wählen Sie eines seiner Modelle.</translation>
    </message>
</context>
<context>
    <name>ChatStrip</name>
    <message>
        <source>Stop talking with your language model</source>
        <translation>Gespräch mit Ihrem Sprachmodell beenden</translation>
    </message>
</context>
<context>
    <name>ConversationFiles</name>
    <message>
        <source>Untitled conversation</source>
        <translation>Unbenanntes Gespräch</translation>
    </message>
    <message>
        <source>{name} * — Parley</source>
        <translation>{name} * — Parley</translation>
    </message>
    <message>
        <source>{name} — Parley</source>
        <translation>{name} — Parley</translation>
    </message>
    <message>
        <source>Opening {file} was cancelled; the current conversation goes on.</source>
        <translation>Das Öffnen von {file} wurde abgebrochen; das aktuelle Gespräch geht weiter.</translation>
    </message>
    <message>
        <source>Could not export the transcript: {problem}</source>
        <translation>Das Transkript konnte nicht exportiert werden: {problem}</translation>
    </message>
    <message>
        <source>Exported transcript: {path}</source>
        <translation>Transkript exportiert: {path}</translation>
    </message>
    <message>
        <source>Saved: {path}</source>
        <translation>Gespeichert: {path}</translation>
    </message>
    <message>
        <source>Exported audio: {path}</source>
        <translation>Audio exportiert: {path}</translation>
    </message>
</context>
<context>
    <name>ConversationModel</name>
    <message>
        <source>Loading the model; Talk works once it is ready.</source>
        <translation>Das Modell wird geladen; Sprechen funktioniert, sobald es bereit ist.</translation>
    </message>
    <message>
        <source>No model is loaded (Model → Model manager...).</source>
        <translation>Es ist kein Modell geladen (Modell → Modellverwaltung...).</translation>
    </message>
    <message>
        <source>No microphone: {problem}</source>
        <translation>Kein Mikrofon: {problem}</translation>
    </message>
    <message>
        <source>The assistant waits for you to speak first.</source>
        <translation>Der Assistent wartet, bis Sie zuerst sprechen.</translation>
    </message>
    <message>
        <source>The conversation is kept; press Resume to continue.</source>
        <translation>Das Gespräch bleibt erhalten; klicken Sie auf Fortsetzen, um weiterzumachen.</translation>
    </message>
    <message>
        <source>The assistant may speak first.</source>
        <translation>Der Assistent darf zuerst sprechen.</translation>
    </message>
</context>
<context>
    <name>ConversationPanel</name>
    <message>
        <source>Hold Space (or the Talk button) and speak, or press Start to let the assistant begin. The conversation appears here.</source>
        <translation>Halten Sie die Leertaste (oder die Sprechtaste) und sprechen Sie, oder klicken Sie auf Starten, damit der Assistent beginnt. Das Gespräch erscheint hier.</translation>
    </message>
    <message>
        <source>Hold to talk  (Space)</source>
        <translation>Zum Sprechen halten  (Leertaste)</translation>
    </message>
    <message>
        <source>Hold this button, or Space, while you speak.</source>
        <translation>Halten Sie diese Taste oder die Leertaste, während Sie sprechen.</translation>
    </message>
    <message>
        <source>Open mic (hands-free)</source>
        <translation>Offenes Mikrofon (freihändig)</translation>
    </message>
    <message>
        <source>The model hears the microphone all the time. Echo cancellation (Audio menu) keeps it from hearing itself on speakers.</source>
        <translation>Das Modell hört das Mikrofon ständig. Die Echounterdrückung (Menü Audio) verhindert, dass es sich selbst über die Lautsprecher hört.</translation>
    </message>
    <message>
        <source>End</source>
        <translation>Beenden</translation>
    </message>
    <message>
        <source>End this conversation (you are asked to save what you said); a new one waits for Talk or Start.</source>
        <translation>Dieses Gespräch beenden (Sie werden gefragt, ob Sie das Gesagte speichern möchten); ein neues wartet auf Sprechen oder Starten.</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>Stop the conversation: the model uses no processor time until you continue.</source>
        <translation>Das Gespräch anhalten: Das Modell braucht keine Rechenzeit, bis Sie fortfahren.</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>Fortfahren</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>Starten</translation>
    </message>
    <message>
        <source>Run the conversation: the assistant listens and may speak. Talk starts it too.</source>
        <translation>Das Gespräch starten: Der Assistent hört zu und darf sprechen. Sprechen startet es auch.</translation>
    </message>
    <message>
        <source>Hold it (or Space) while you speak.</source>
        <translation>Halten Sie sie (oder die Leertaste), während Sie sprechen.</translation>
    </message>
    <message>
        <source>The assistant waits for you: hold Space (or the Talk button) and speak.</source>
        <translation>Der Assistent wartet auf Sie: Halten Sie die Leertaste (oder die Sprechtaste) und sprechen Sie.</translation>
    </message>
    <message>
        <source>The conversation runs: hold Space (or the Talk button) and speak. It appears here.</source>
        <translation>Das Gespräch läuft: Halten Sie die Leertaste (oder die Sprechtaste) und sprechen Sie. Es erscheint hier.</translation>
    </message>
</context>
<context>
    <name>ConversationView</name>
    <message>
        <source>overlaps</source>
        <translation>überlappt</translation>
    </message>
    <message>
        <source>(speech without words)</source>
        <translation>(Sprache ohne Worte)</translation>
    </message>
    <message>
        <source>{who}  ·  {time}  ·  {seconds} s</source>
        <translation>{who}  ·  {time}  ·  {seconds} s</translation>
    </message>
</context>
<context>
    <name>DesktopKey</name>
    <message>
        <source>macOS gives Parley no desktop-wide key yet.</source>
        <translation>macOS gibt Parley noch keine systemweite Taste.</translation>
    </message>
    <message>
        <source>No X11 display or Wayland session was found, so no desktop-wide key can be set.</source>
        <translation>Weder eine X11-Anzeige noch eine Wayland-Sitzung wurde gefunden, daher kann keine systemweite Taste festgelegt werden.</translation>
    </message>
    <message>
        <source>{key} cannot be a desktop-wide key: choose a letter, a digit, Space, a function key or Pause, with Ctrl, Alt or the Super key.</source>
        <translation>{key} kann keine systemweite Taste sein: Wählen Sie einen Buchstaben, eine Ziffer, die Leertaste, eine Funktionstaste oder Pause, mit Strg, Alt oder der Super-Taste.</translation>
    </message>
    <message>
        <source>{key} with only Shift would be taken from every other program&apos;s typing: add Ctrl, Alt or the Super key.</source>
        <translation>{key} nur mit Umschalt würde allen anderen Programmen beim Tippen fehlen: Fügen Sie Strg, Alt oder die Super-Taste hinzu.</translation>
    </message>
    <message>
        <source>{key} alone would be taken from every other program&apos;s typing: add Ctrl, Alt or the Super key.</source>
        <translation>{key} allein würde allen anderen Programmen beim Tippen fehlen: Fügen Sie Strg, Alt oder die Super-Taste hinzu.</translation>
    </message>
</context>
<context>
    <name>DesktopTalkKey</name>
    <message>
        <source>{problem} Space in Parley&apos;s window still works.</source>
        <translation>{problem} Die Leertaste funktioniert im Fenster von Parley weiterhin.</translation>
    </message>
</context>
<context>
    <name>DeviceReport</name>
    <message>
        <source>this build of torch ({version}) has no CUDA support</source>
        <translation>dieser torch-Build ({version}) unterstützt CUDA nicht</translation>
    </message>
    <message>
        <source>no NVIDIA driver found ({library})</source>
        <translation>kein NVIDIA-Treiber gefunden ({library})</translation>
    </message>
    <message>
        <source>CUDA does not initialise: {problem}</source>
        <translation>CUDA startet nicht: {problem}</translation>
    </message>
    <message>
        <source>the NVIDIA driver is there but CUDA does not start: {problem}</source>
        <translation>der NVIDIA-Treiber ist vorhanden, aber CUDA startet nicht: {problem}</translation>
    </message>
    <message>
        <source>no CUDA device (the NVIDIA driver found no GPU)</source>
        <translation>kein CUDA-Gerät (der NVIDIA-Treiber hat keine GPU gefunden)</translation>
    </message>
</context>
<context>
    <name>DevicesModel</name>
    <message>
        <source>the audio devices stopped responding</source>
        <translation>die Audiogeräte reagieren nicht mehr</translation>
    </message>
    <message>
        <source>the audio devices failed</source>
        <translation>die Audiogeräte sind ausgefallen</translation>
    </message>
    <message numerus="yes">
        <source>%n frames dropped · {xruns} xruns · {gaps} s output gaps</source>
        <translation>
            <numerusform>%n Frame verworfen · {xruns} Xruns · {gaps} s Ausgabelücken</numerusform>
            <numerusform>%n Frames verworfen · {xruns} Xruns · {gaps} s Ausgabelücken</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>DevicesPanel</name>
    <message>
        <source>System default</source>
        <translation>Systemstandard</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>angehalten</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>startet</translation>
    </message>
    <message>
        <source>lost</source>
        <translation>verloren</translation>
    </message>
    <message>
        <source>error</source>
        <translation>Fehler</translation>
    </message>
    <message>
        <source>Audio: {input} ({input_rate} Hz) → {output} ({output_rate} Hz)</source>
        <translation>Audio: {input} ({input_rate} Hz) → {output} ({output_rate} Hz)</translation>
    </message>
    <message>
        <source>Audio: {input} → {output} (opened while a conversation runs)</source>
        <translation>Audio: {input} → {output} (geöffnet, solange ein Gespräch läuft)</translation>
    </message>
    <message>
        <source>Audio: {state}</source>
        <translation>Audio: {state}</translation>
    </message>
    <message>
        <source>Refresh devices</source>
        <translation>Geräte aktualisieren</translation>
    </message>
    <message>
        <source>Look again for microphones and speakers (F5)</source>
        <translation>Erneut nach Mikrofonen und Lautsprechern suchen (F5)</translation>
    </message>
    <message>
        <source>Microphone</source>
        <translation>Mikrofon</translation>
    </message>
    <message>
        <source>Speaker</source>
        <translation>Lautsprecher</translation>
    </message>
    <message>
        <source>Audio: not started</source>
        <translation>Audio: nicht gestartet</translation>
    </message>
</context>
<context>
    <name>Durations</name>
    <message>
        <source>{s} s</source>
        <translation>{s} s</translation>
    </message>
    <message>
        <source>{m} min {s} s</source>
        <translation>{m} min {s} s</translation>
    </message>
    <message>
        <source>{h} h {m} min</source>
        <translation>{h} h {m} min</translation>
    </message>
</context>
<context>
    <name>EchoMeter</name>
    <message>
        <source>Echo cancellation: off</source>
        <translation>Echounterdrückung: aus</translation>
    </message>
    <message>
        <source>Echo suppression: waiting for the assistant to speak</source>
        <translation>Echodämpfung: wartet darauf, dass der Assistent spricht</translation>
    </message>
    <message>
        <source>Echo suppression (ERLE, est.): {db} dB</source>
        <translation>Echodämpfung (ERLE, geschätzt): {db} dB</translation>
    </message>
    <message>
        <source> · echo {ms} ms behind the speaker</source>
        <translation> · Echo {ms} ms hinter dem Lautsprecher</translation>
    </message>
    <message>
        <source>Mic, raw</source>
        <translation>Mikrofon, roh</translation>
    </message>
    <message>
        <source>Mic, processed</source>
        <translation>Mikrofon, verarbeitet</translation>
    </message>
    <message>
        <source>echo suppression</source>
        <translation>Echodämpfung</translation>
    </message>
</context>
<context>
    <name>EngineTexts</name>
    <message>
        <source>(untrained, babbles)</source>
        <translation>(untrainiert, plappert)</translation>
    </message>
    <message>
        <source>General assistant</source>
        <translation>Allgemeiner Assistent</translation>
    </message>
    <message>
        <source>Language partner</source>
        <translation>Sprachpartner</translation>
    </message>
    <message>
        <source>Casual chat</source>
        <translation>Lockeres Gespräch</translation>
    </message>
</context>
<context>
    <name>FileKindMenu</name>
    <message>
        <source>&amp;Automatic</source>
        <translation>&amp;Automatisch</translation>
    </message>
    <message>
        <source>Compact for the 7B models, a full snapshot for small ones.</source>
        <translation>Kompakt für die 7B-Modelle, ein vollständiger Schnappschuss für kleine.</translation>
    </message>
    <message>
        <source>&amp;Compact</source>
        <translation>&amp;Kompakt</translation>
    </message>
    <message>
        <source>About 2 MB a minute for any model; rebuilt (with a progress bar) when opened.</source>
        <translation>Etwa 2 MB pro Minute für jedes Modell; wird beim Öffnen (mit Fortschrittsbalken) neu aufgebaut.</translation>
    </message>
    <message>
        <source>&amp;Full snapshot</source>
        <translation>&amp;Vollständiger Schnappschuss</translation>
    </message>
    <message>
        <source>Opens instantly; a 7B conversation can take gigabytes.</source>
        <translation>Öffnet sofort; ein 7B-Gespräch kann Gigabytes belegen.</translation>
    </message>
    <message>
        <source>Conversation fi&amp;les</source>
        <translation>Gesprächs&amp;dateien</translation>
    </message>
</context>
<context>
    <name>HealthModel</name>
    <message>
        <source>Model → Model manager</source>
        <translation>Modell → Modellverwaltung</translation>
    </message>
    <message>
        <source>Whether this computer computes each 80 ms of the assistant&apos;s speech in less than 80 ms. When it does not, replies come late and break up.</source>
        <translation>Ob dieser Computer jede 80 ms der Sprache des Assistenten in weniger als 80 ms berechnet. Wenn nicht, kommen Antworten verspätet und stockend.</translation>
    </message>
    <message>
        <source>How long it takes from your mouth to the model and its answer to the speaker (estimated).</source>
        <translation>Wie lange es von Ihrem Mund zum Modell und von seiner Antwort zum Lautsprecher dauert (geschätzt).</translation>
    </message>
    <message>
        <source>How much more of the conversation the model can remember. When it is full, it forgets the oldest part and goes on.</source>
        <translation>Wie viel mehr vom Gespräch sich das Modell merken kann. Ist es voll, vergisst es den ältesten Teil und macht weiter.</translation>
    </message>
    <message>
        <source>Too slow for real time: replies come late and break up. To help, choose {precision} ({manager}), run it on the GPU ({manager}) or close other programs.</source>
        <translation>Zu langsam für Echtzeit: Antworten kommen verspätet und stockend. Abhilfe: {precision} wählen ({manager}), auf der GPU ausführen ({manager}) oder andere Programme schließen.</translation>
    </message>
    <message>
        <source>Too slow for real time: replies come late and break up. To help, choose {precision} ({manager}) or close other programs.</source>
        <translation>Zu langsam für Echtzeit: Antworten kommen verspätet und stockend. Abhilfe: {precision} wählen ({manager}) oder andere Programme schließen.</translation>
    </message>
    <message>
        <source>Too slow for real time: replies come late and break up. To help, run it on the GPU ({manager}) or close other programs.</source>
        <translation>Zu langsam für Echtzeit: Antworten kommen verspätet und stockend. Abhilfe: auf der GPU ausführen ({manager}) oder andere Programme schließen.</translation>
    </message>
    <message>
        <source>Too slow for real time: replies come late and break up. To help, close other programs.</source>
        <translation>Zu langsam für Echtzeit: Antworten kommen verspätet und stockend. Abhilfe: andere Programme schließen.</translation>
    </message>
    <message>
        <source>{first} or {second}</source>
        <translation>{first} oder {second}</translation>
    </message>
    <message>
        <source>full, remembers the last {duration}</source>
        <translation>voll, merkt sich die letzten {duration}</translation>
    </message>
    <message>
        <source>{duration} left</source>
        <translation>noch {duration}</translation>
    </message>
    <message>
        <source>falling behind</source>
        <translation>fällt zurück</translation>
    </message>
    <message>
        <source>keeping up</source>
        <translation>hält mit</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} s</translation>
    </message>
    <message>
        <source>This computer takes {ms} ms to compute each {frame} ms of sound with the demo model.</source>
        <translation>Dieser Computer braucht {ms} ms, um jede {frame} ms Ton mit dem Demomodell zu berechnen.</translation>
    </message>
    <message>
        <source>This computer takes {ms} ms to compute each {frame} ms of sound with {model}.</source>
        <translation>Dieser Computer braucht {ms} ms, um jede {frame} ms Ton mit {model} zu berechnen.</translation>
    </message>
</context>
<context>
    <name>HistoryPlot</name>
    <message>
        <source>latency history</source>
        <translation>Latenzverlauf</translation>
    </message>
</context>
<context>
    <name>Interpreter</name>
    <message>
        <source>The interpreter listens to the microphone while it runs.</source>
        <translation>Der Dolmetscher hört das Mikrofon, solange er läuft.</translation>
    </message>
    <message>
        <source>Listening to what this computer plays is not available here: {reason}.</source>
        <translation>Hören, was dieser Computer abspielt, ist hier nicht verfügbar: {reason}.</translation>
    </message>
    <message>
        <source>To follow a call or a video, choose &quot;What … plays&quot; as the input.</source>
        <translation>Um einem Anruf oder Video zu folgen, wählen Sie „Was … abspielt“ als Eingang.</translation>
    </message>
    <message>
        <source>Echo cancellation keeps it from hearing its own voice.</source>
        <translation>Die Echounterdrückung verhindert, dass er seine eigene Stimme hört.</translation>
    </message>
    <message>
        <source>Echo cancellation is off or unavailable: use headphones, or it will hear its own voice.</source>
        <translation>Die Echounterdrückung ist aus oder nicht verfügbar: Nutzen Sie Kopfhörer, sonst hört er seine eigene Stimme.</translation>
    </message>
    <message>
        <source>The interpreter listens to what {device} plays and speaks on another output: its own voice does not come back in.</source>
        <translation>Der Dolmetscher hört, was {device} abspielt, und spricht auf einem anderen Ausgang: Seine eigene Stimme kommt nicht zurück.</translation>
    </message>
    <message>
        <source>The interpreter listens to what {device} plays and speaks there too, so its own voice would come back in, and echo cancellation is unavailable ({problem}): choose another speaker, such as headphones.</source>
        <translation>Der Dolmetscher hört, was {device} abspielt, und spricht auch dort, seine eigene Stimme käme also zurück, und die Echounterdrückung ist nicht verfügbar ({problem}): Wählen Sie einen anderen Lautsprecher, etwa Kopfhörer.</translation>
    </message>
    <message>
        <source>The interpreter listens to what {device} plays and speaks there too: echo cancellation against its own voice is always on here, so it does not hear itself.</source>
        <translation>Der Dolmetscher hört, was {device} abspielt, und spricht auch dort: Die Echounterdrückung seiner eigenen Stimme ist hier immer an, er hört sich also nicht selbst.</translation>
    </message>
    <message>
        <source>Listen to</source>
        <translation>Hören</translation>
    </message>
    <message>
        <source>Interpreter mode: it speaks and writes in English what it hears · personas do not apply</source>
        <translation>Dolmetschermodus: Er spricht und schreibt auf Englisch, was er hört · Personas gelten nicht</translation>
    </message>
    <message>
        <source>The interpreter listens all the time while it runs: Start and Pause control it.</source>
        <translation>Der Dolmetscher hört ständig zu, solange er läuft: Starten und Pause steuern ihn.</translation>
    </message>
    <message>
        <source>Press Start: the interpreter listens and speaks the English translation. Its English text appears here.</source>
        <translation>Drücken Sie Starten: Der Dolmetscher hört zu und spricht die englische Übersetzung. Ihr englischer Text erscheint hier.</translation>
    </message>
</context>
<context>
    <name>LanguageMenu</name>
    <message>
        <source>Lan&amp;guage</source>
        <translation>&amp;Sprache</translation>
    </message>
    <message>
        <source>Applies the next time Parley starts.</source>
        <translation>Gilt ab dem nächsten Start von Parley.</translation>
    </message>
    <message>
        <source>System ({language})</source>
        <translation>System ({language})</translation>
    </message>
</context>
<context>
    <name>LevelMeter</name>
    <message>
        <source>{meter} level</source>
        <translation>Pegel {meter}</translation>
    </message>
    <message>
        <source>{db} dBFS</source>
        <translation>{db} dBFS</translation>
    </message>
    <message>
        <source>{meter}  {db} dB</source>
        <translation>{meter}  {db} dB</translation>
    </message>
    <message>
        <source>{meter}  silent</source>
        <translation>{meter}  still</translation>
    </message>
</context>
<context>
    <name>Library</name>
    <message>
        <source>{file} cannot be read: {problem}</source>
        <translation>{file} kann nicht gelesen werden: {problem}</translation>
    </message>
    <message>
        <source>{file} is a folder, not a conversation.</source>
        <translation>{file} ist ein Ordner, kein Gespräch.</translation>
    </message>
    <message>
        <source>{file} is not a regular file (a pipe or a device); it was not opened.</source>
        <translation>{file} ist keine normale Datei (eine Pipe oder ein Gerät); sie wurde nicht geöffnet.</translation>
    </message>
    <message>
        <source>{file} is damaged ({problem}).</source>
        <translation>{file} ist beschädigt ({problem}).</translation>
    </message>
</context>
<context>
    <name>LibraryModel</name>
    <message>
        <source>{title} (open now)</source>
        <translation>{title} (geöffnet)</translation>
    </message>
    <message>
        <source>{name} cannot be a file name.</source>
        <translation>{name} kann kein Dateiname sein.</translation>
    </message>
    <message>
        <source>That name is too long (at most {count} bytes).</source>
        <translation>Dieser Name ist zu lang (höchstens {count} Bytes).</translation>
    </message>
    <message>
        <source>There is already a conversation called {name}.</source>
        <translation>Es gibt bereits ein Gespräch namens {name}.</translation>
    </message>
    <message>
        <source>Could not rename {file}: {problem}</source>
        <translation>{file} konnte nicht umbenannt werden: {problem}</translation>
    </message>
    <message>
        <source>Could not move {file} to the trash.</source>
        <translation>{file} konnte nicht in den Papierkorb verschoben werden.</translation>
    </message>
</context>
<context>
    <name>LibraryPanel</name>
    <message>
        <source>Unreadable: {problem}</source>
        <translation>Nicht lesbar: {problem}</translation>
    </message>
    <message>
        <source>unknown date</source>
        <translation>unbekanntes Datum</translation>
    </message>
    <message>
        <source>Open now · {details}</source>
        <translation>Geöffnet · {details}</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>Gespräche</translation>
    </message>
    <message>
        <source>Search titles and transcripts</source>
        <translation>Titel und Transkripte durchsuchen</translation>
    </message>
    <message>
        <source>Search titles and transcripts (Ctrl+F)</source>
        <translation>Titel und Transkripte durchsuchen (Strg+F)</translation>
    </message>
    <message>
        <source>Search conversations</source>
        <translation>Gespräche durchsuchen</translation>
    </message>
    <message>
        <source>saved conversations</source>
        <translation>gespeicherte Gespräche</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Öffnen</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>Abspielen</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>Umbenennen</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <source>Open the conversation selected in the library</source>
        <translation>Das in der Bibliothek gewählte Gespräch öffnen</translation>
    </message>
    <message>
        <source>Play the conversation selected in the library</source>
        <translation>Das in der Bibliothek gewählte Gespräch abspielen</translation>
    </message>
    <message>
        <source>Rename the conversation selected in the library</source>
        <translation>Das in der Bibliothek gewählte Gespräch umbenennen</translation>
    </message>
    <message>
        <source>Delete the conversation selected in the library</source>
        <translation>Das in der Bibliothek gewählte Gespräch löschen</translation>
    </message>
    <message>
        <source>Reading the conversations folder...</source>
        <translation>Der Gesprächsordner wird gelesen...</translation>
    </message>
    <message>
        <source>No saved conversations yet. File → Save keeps one here.</source>
        <translation>Noch keine gespeicherten Gespräche. Datei → Speichern legt eines hier ab.</translation>
    </message>
    <message>
        <source>Searching the transcripts for “{query}”...</source>
        <translation>Die Transkripte werden nach „{query}“ durchsucht...</translation>
    </message>
    <message>
        <source>No conversation matches “{query}”.</source>
        <translation>Kein Gespräch passt zu „{query}“.</translation>
    </message>
    <message>
        <source>Rename conversation</source>
        <translation>Gespräch umbenennen</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>Name:</translation>
    </message>
    <message>
        <source>{file} is no longer in the conversations folder.</source>
        <translation>{file} ist nicht mehr im Gesprächsordner.</translation>
    </message>
    <message>
        <source>Delete conversation</source>
        <translation>Gespräch löschen</translation>
    </message>
    <message>
        <source>Move “{title}” to the trash?</source>
        <translation>„{title}“ in den Papierkorb verschieben?</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Parley conversation (*.parley);;All files (*)</source>
        <translation>Parley-Gespräch (*.parley);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Personas...</source>
        <translation>Personas...</translation>
    </message>
    <message>
        <source>Choose who the assistant is (a new conversation), or edit the personas.</source>
        <translation>Wählen, wer der Assistent ist (ein neues Gespräch), oder die Personas bearbeiten.</translation>
    </message>
    <message>
        <source>Meters and devices</source>
        <translation>Anzeigen und Geräte</translation>
    </message>
    <message>
        <source>Crash protection stopped: {problem}. Parley keeps trying and resumes it once the disk has room; save the conversation to keep it.</source>
        <translation>Absturzschutz angehalten: {problem}. Parley versucht es weiter und setzt ihn fort, sobald die Festplatte Platz hat; speichern Sie das Gespräch, um es zu behalten.</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>Kein Modell geladen</translation>
    </message>
    <message>
        <source>Load the previous model ({name}) again?</source>
        <translation>Das vorherige Modell ({name}) erneut laden?</translation>
    </message>
    <message>
        <source>Version {version}</source>
        <translation>Version {version}</translation>
    </message>
    <message>
        <source>Opening the conversation (rebuilding it from its file)...</source>
        <translation>Das Gespräch wird geöffnet (aus seiner Datei neu aufgebaut)...</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>The language changes the next time Parley starts.</source>
        <translation>Die Sprache ändert sich beim nächsten Start von Parley.</translation>
    </message>
    <message>
        <source>Open conversation</source>
        <translation>Gespräch öffnen</translation>
    </message>
    <message>
        <source>“{title}” was saved with another copy of the model {model}, whose weights differ from the loaded one&apos;s (built or downloaded elsewhere), so Parley cannot continue it here.</source>
        <translation>„{title}“ wurde mit einer anderen Kopie des Modells {model} gespeichert, deren Gewichte sich von denen des geladenen Modells unterscheiden (anderswo erstellt oder heruntergeladen); Parley kann sie hier nicht fortsetzen.</translation>
    </message>
    <message>
        <source>“{title}” was saved with the model {model}, which is not on this machine (the loaded model is {loaded}). Parley does not fetch or load a model a file names: load that model yourself, then open the conversation again.</source>
        <translation>„{title}“ wurde mit dem Modell {model} gespeichert, das auf diesem Computer nicht vorhanden ist (geladen ist {loaded}). Parley lädt kein Modell herunter oder lädt es, nur weil eine Datei es nennt: Laden Sie das Modell selbst und öffnen Sie das Gespräch dann erneut.</translation>
    </message>
    <message>
        <source>Another model</source>
        <translation>Anderes Modell</translation>
    </message>
    <message>
        <source>“{title}” was saved with the model {model}; the loaded model is {loaded}. Switch to {other} and open it?</source>
        <translation>„{title}“ wurde mit dem Modell {model} gespeichert; geladen ist {loaded}. Zu {other} wechseln und es öffnen?</translation>
    </message>
    <message>
        <source>{path} no longer exists.</source>
        <translation>{path} existiert nicht mehr.</translation>
    </message>
    <message>
        <source>Save conversation</source>
        <translation>Gespräch speichern</translation>
    </message>
    <message>
        <source>A conversation needs a name: type one, or keep the one proposed.</source>
        <translation>Ein Gespräch braucht einen Namen: Geben Sie einen ein oder behalten Sie den vorgeschlagenen.</translation>
    </message>
    <message>
        <source>Export transcript</source>
        <translation>Transkript exportieren</translation>
    </message>
    <message>
        <source>Export conversation audio</source>
        <translation>Gesprächsaudio exportieren</translation>
    </message>
    <message>
        <source>WAV audio, left: you, right: assistant (*.wav)</source>
        <translation>WAV-Audio, links: Sie, rechts: Assistent (*.wav)</translation>
    </message>
    <message>
        <source>Unsaved conversation</source>
        <translation>Ungespeichertes Gespräch</translation>
    </message>
    <message>
        <source>Save the current conversation before it is closed?</source>
        <translation>Das aktuelle Gespräch vor dem Schließen speichern?</translation>
    </message>
    <message>
        <source>Log file: {path}</source>
        <translation>Protokolldatei: {path}</translation>
    </message>
    <message>
        <source>No log file: {problem}</source>
        <translation>Keine Protokolldatei: {problem}</translation>
    </message>
    <message>
        <source>About Parley</source>
        <translation>Über Parley</translation>
    </message>
    <message>
        <source>Parley: a local, real-time, full-duplex voice assistant for the Moshi family of speech models.</source>
        <translation>Parley: ein lokaler Sprachassistent in Echtzeit und Vollduplex für die Moshi-Familie von Sprachmodellen.</translation>
    </message>
    <message>
        <source>Save conversation?</source>
        <translation>Gespräch speichern?</translation>
    </message>
    <message>
        <source>Save the current conversation before quitting?</source>
        <translation>Das aktuelle Gespräch vor dem Beenden speichern?</translation>
    </message>
</context>
<context>
    <name>MediaPause</name>
    <message>
        <source>Pausing other players uses MPRIS, which only Linux desktops have.</source>
        <translation>Das Anhalten anderer Player nutzt MPRIS, das nur Linux-Desktops haben.</translation>
    </message>
</context>
<context>
    <name>Menus</name>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;New conversation</source>
        <translation>&amp;Neues Gespräch</translation>
    </message>
    <message>
        <source>&amp;End conversation</source>
        <translation>Gespräch &amp;beenden</translation>
    </message>
    <message>
        <source>End this conversation (you are asked to save what you said); a new one waits for Talk or Start.</source>
        <translation>Dieses Gespräch beenden (Sie werden gefragt, ob Sie das Gesagte speichern möchten); ein neues wartet auf Sprechen oder Starten.</translation>
    </message>
    <message>
        <source>&amp;Open...</source>
        <translation>Ö&amp;ffnen...</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>&amp;Speichern</translation>
    </message>
    <message>
        <source>Save &amp;as...</source>
        <translation>Speichern &amp;unter...</translation>
    </message>
    <message>
        <source>Export &amp;transcript...</source>
        <translation>&amp;Transkript exportieren...</translation>
    </message>
    <message>
        <source>Export a&amp;udio...</source>
        <translation>Audio e&amp;xportieren...</translation>
    </message>
    <message>
        <source>Open conversations &amp;folder</source>
        <translation>Gesprächs&amp;ordner öffnen</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>B&amp;eenden</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>&amp;Modell</translation>
    </message>
    <message>
        <source>&amp;Model manager...</source>
        <translation>&amp;Modellverwaltung...</translation>
    </message>
    <message>
        <source>Your &amp;language model...</source>
        <translation>&amp;Ihr Sprachmodell...</translation>
    </message>
    <message>
        <source>Talk with a language model you run (Ollama, LM Studio, llama-server, vLLM) through a speech to text and a voice.</source>
        <translation>Mit einem Sprachmodell sprechen, das Sie selbst betreiben (Ollama, LM Studio, llama-server, vLLM), über eine Spracherkennung und eine Stimme.</translation>
    </message>
    <message>
        <source>&amp;Personas...</source>
        <translation>&amp;Personas...</translation>
    </message>
    <message>
        <source>Choose who the assistant is (a new conversation), or edit the personas.</source>
        <translation>Wählen, wer der Assistent ist (ein neues Gespräch), oder die Personas bearbeiten.</translation>
    </message>
    <message>
        <source>&amp;Voices (record, import)...</source>
        <translation>&amp;Stimmen (aufnehmen, importieren)...</translation>
    </message>
    <message>
        <source>&amp;Wait for me to speak (this conversation)</source>
        <translation>&amp;Warten, bis ich spreche (dieses Gespräch)</translation>
    </message>
    <message>
        <source>The assistant stays silent until you press Talk or speak, in this conversation. A persona that always waits: Personas..., &quot;Wait for me to speak first&quot;.</source>
        <translation>Der Assistent schweigt, bis Sie auf Sprechen drücken oder sprechen, in diesem Gespräch. Eine Persona, die immer wartet: Personas..., „Warten, bis ich zuerst spreche“.</translation>
    </message>
    <message>
        <source>&amp;Audio</source>
        <translation>A&amp;udio</translation>
    </message>
    <message>
        <source>&amp;Refresh devices</source>
        <translation>Geräte &amp;aktualisieren</translation>
    </message>
    <message>
        <source>&amp;Talk key...</source>
        <translation>&amp;Sprechtaste...</translation>
    </message>
    <message>
        <source>&amp;Pause other players while talking</source>
        <translation>Andere &amp;Player beim Sprechen anhalten</translation>
    </message>
    <message>
        <source>Music and videos pause while you hold Talk or the assistant speaks, and go on afterwards.</source>
        <translation>Musik und Videos halten an, während Sie Sprechen halten oder der Assistent spricht, und laufen danach weiter.</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Library</source>
        <translation>&amp;Bibliothek</translation>
    </message>
    <message>
        <source>&amp;Meters and latency</source>
        <translation>&amp;Anzeigen und Latenz</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>Open &amp;log folder</source>
        <translation>&amp;Protokollordner öffnen</translation>
    </message>
    <message>
        <source>&amp;About Parley</source>
        <translation>Ü&amp;ber Parley</translation>
    </message>
    <message>
        <source>&amp;Captions of what you say</source>
        <translation>&amp;Untertitel für das, was Sie sagen</translation>
    </message>
    <message>
        <source>Your words appear in your turns as you speak (caption model: {model}), are saved with the conversation and found by the library&apos;s search.</source>
        <translation>Ihre Worte erscheinen in Ihren Redebeiträgen, während Sie sprechen (Untertitelmodell: {model}), werden mit dem Gespräch gespeichert und von der Suche der Bibliothek gefunden.</translation>
    </message>
</context>
<context>
    <name>MetersPanel</name>
    <message>
        <source>Input queue</source>
        <translation>Eingangswarteschlange</translation>
    </message>
    <message>
        <source>Sound from the microphone waiting for the model.</source>
        <translation>Ton vom Mikrofon, der auf das Modell wartet.</translation>
    </message>
    <message>
        <source>Encode</source>
        <translation>Kodieren</translation>
    </message>
    <message>
        <source>Turning the microphone&apos;s sound into the model&apos;s tokens.</source>
        <translation>Der Ton des Mikrofons wird in Token des Modells umgewandelt.</translation>
    </message>
    <message>
        <source>LM</source>
        <translation>LM</translation>
    </message>
    <message>
        <source>The language model choosing what to say next.</source>
        <translation>Das Sprachmodell wählt, was es als Nächstes sagt.</translation>
    </message>
    <message>
        <source>Depth</source>
        <translation>Tiefe</translation>
    </message>
    <message>
        <source>The model choosing the details of its next piece of sound.</source>
        <translation>Das Modell wählt die Details seines nächsten Tonstücks.</translation>
    </message>
    <message>
        <source>Decode</source>
        <translation>Dekodieren</translation>
    </message>
    <message>
        <source>Turning the model&apos;s tokens into sound.</source>
        <translation>Die Token des Modells werden in Ton umgewandelt.</translation>
    </message>
    <message>
        <source>Output queue</source>
        <translation>Ausgangswarteschlange</translation>
    </message>
    <message>
        <source>The assistant&apos;s sound waiting for the speaker.</source>
        <translation>Der Ton des Assistenten, der auf den Lautsprecher wartet.</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>Zustand</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>Tempo</translation>
    </message>
    <message>
        <source>Delay</source>
        <translation>Verzögerung</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Gedächtnis</translation>
    </message>
    <message>
        <source>Levels</source>
        <translation>Pegel</translation>
    </message>
    <message>
        <source>Mic</source>
        <translation>Mikro</translation>
    </message>
    <message>
        <source>How loud the microphone is.</source>
        <translation>Wie laut das Mikrofon ist.</translation>
    </message>
    <message>
        <source>Model hears</source>
        <translation>Modell hört</translation>
    </message>
    <message>
        <source>What the model hears: silent while you do not hold Talk (open mic off).</source>
        <translation>Was das Modell hört: still, solange Sie Sprechen nicht halten (offenes Mikrofon aus).</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>Assistent</translation>
    </message>
    <message>
        <source>How loud the assistant speaks.</source>
        <translation>Wie laut der Assistent spricht.</translation>
    </message>
    <message>
        <source>Advanced</source>
        <translation>Erweitert</translation>
    </message>
    <message>
        <source>Show the figures for developers: time per stage, compute history, memory use, echo suppression, dropped sound.</source>
        <translation>Die Zahlen für Entwickler anzeigen: Zeit pro Stufe, Rechenverlauf, Speicher, Echodämpfung, verlorener Ton.</translation>
    </message>
    <message>
        <source>Microphone processing</source>
        <translation>Mikrofonverarbeitung</translation>
    </message>
    <message>
        <source>The microphone before and after echo cancellation, and how much of the assistant&apos;s voice it removes (ERLE: more dB is better).</source>
        <translation>Das Mikrofon vor und nach der Echounterdrückung und wie viel von der Stimme des Assistenten sie entfernt (ERLE: mehr dB ist besser).</translation>
    </message>
    <message>
        <source>Time per frame (ms)</source>
        <translation>Zeit pro Frame (ms)</translation>
    </message>
    <message>
        <source>Mic to speaker (est.)</source>
        <translation>Mikro bis Lautsprecher (geschätzt)</translation>
    </message>
    <message>
        <source>Real-time factor</source>
        <translation>Echtzeitfaktor</translation>
    </message>
    <message>
        <source>Compute time over sound time: below 1 keeps up with real time.</source>
        <translation>Rechenzeit durch Tonzeit: unter 1 hält mit der Echtzeit mit.</translation>
    </message>
    <message>
        <source>Engine thread</source>
        <translation>Engine-Thread</translation>
    </message>
    <message>
        <source>The engine thread&apos;s time around a frame: its CPU time in the model&apos;s step, the step&apos;s time waiting (for the Python lock, a core, torch&apos;s other threads), the crash journal and transcript, the microphone&apos;s processing, the reply&apos;s output.</source>
        <translation>Die Zeit des Engine-Threads rund um einen Frame: seine CPU-Zeit im Schritt des Modells, die Wartezeit des Schritts (auf die Python-Sperre, einen Kern, die anderen Threads von torch), das Absturzjournal und das Transkript, die Mikrofonverarbeitung, die Ausgabe der Antwort.</translation>
    </message>
    <message>
        <source>GUI thread</source>
        <translation>GUI-Thread</translation>
    </message>
    <message>
        <source>CPU time the window spent between two frames: it takes cores and the Python lock from the engine.</source>
        <translation>CPU-Zeit, die das Fenster zwischen zwei Frames verbraucht hat: Sie nimmt der Engine Kerne und die Python-Sperre.</translation>
    </message>
    <message>
        <source>{ms} ms budget</source>
        <translation>Budget {ms} ms</translation>
    </message>
    <message>
        <source>Compute time of each frame: below the {ms} ms line the computer keeps up.</source>
        <translation>Rechenzeit jedes Frames: Unter der {ms}-ms-Linie hält der Computer mit.</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>Engine</translation>
    </message>
    <message>
        <source>0 frames dropped · 0 xruns</source>
        <translation>0 Frames verworfen · 0 Xruns</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV-Cache</translation>
    </message>
    <message>
        <source>The model&apos;s memory of the conversation: places used of its size, how often it filled up and started over (wraps), and its size in memory.</source>
        <translation>Das Gedächtnis des Modells für das Gespräch: belegte Plätze seiner Größe, wie oft es voll war und neu begann (Umläufe), und seine Größe im Speicher.</translation>
    </message>
    <message>
        <source>Drops</source>
        <translation>Verluste</translation>
    </message>
    <message>
        <source>Frames dropped: input skipped because the model fell behind real time. Xruns: the sound card&apos;s buffers ran over or under. Output gaps: silence played while the model had no reply ready.</source>
        <translation>Verworfene Frames: Eingabe übersprungen, weil das Modell hinter der Echtzeit zurückfiel. Xruns: Die Puffer der Soundkarte liefen über oder leer. Ausgabelücken: Stille, weil das Modell keine Antwort bereit hatte.</translation>
    </message>
    <message>
        <source>{ms} ms</source>
        <translation>{ms} ms</translation>
    </message>
    <message>
        <source>CPU {cpu} · waiting {waiting} · journal {journal} · input {input} · output {output}</source>
        <translation>CPU {cpu} · Warten {waiting} · Journal {journal} · Eingabe {input} · Ausgabe {output}</translation>
    </message>
    <message>
        <source>CPU {cpu}</source>
        <translation>CPU {cpu}</translation>
    </message>
    <message numerus="yes">
        <source>{name}: {used}/{capacity} · %n wrap(s) · {size} MiB</source>
        <translation>
            <numerusform>{name}: {used}/{capacity} · %n Umlauf · {size} MiB</numerusform>
            <numerusform>{name}: {used}/{capacity} · %n Umläufe · {size} MiB</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MicrophoneBanner</name>
    <message>
        <source>Choose microphone...</source>
        <translation>Mikrofon wählen...</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>Erneut versuchen</translation>
    </message>
    <message>
        <source>Look for audio devices again (one plugged in since Parley started).</source>
        <translation>Erneut nach Audiogeräten suchen (eines, das seit dem Start von Parley angeschlossen wurde).</translation>
    </message>
    <message>
        <source>No microphone: Parley cannot hear you, so Talk is off. {problem}</source>
        <translation>Kein Mikrofon: Parley kann Sie nicht hören, daher ist Sprechen aus. {problem}</translation>
    </message>
</context>
<context>
    <name>ModelManager</name>
    <message>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <source>About</source>
        <translation>Beschreibung</translation>
    </message>
    <message>
        <source>Here</source>
        <translation>Hier</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <source>On this machine</source>
        <translation>Auf diesem Computer</translation>
    </message>
    <message>
        <source>With captions</source>
        <translation>Mit Untertiteln</translation>
    </message>
    <message>
        <source>Licence</source>
        <translation>Lizenz</translation>
    </message>
    <message>
        <source>Parley&apos;s CUDA variant</source>
        <translation>die CUDA-Variante von Parley</translation>
    </message>
    <message>
        <source>runs here</source>
        <translation>läuft hier</translation>
    </message>
    <message>
        <source>fits this GPU</source>
        <translation>passt auf diese GPU</translation>
    </message>
    <message>
        <source>This computer has no GPU these models can use ({reason}); here they would not run in real time.</source>
        <translation>Dieser Computer hat keine GPU, die diese Modelle nutzen können ({reason}); hier liefen sie nicht in Echtzeit.</translation>
    </message>
    <message>
        <source>This computer&apos;s GPU: {name}, {gb} GB.</source>
        <translation>GPU dieses Computers: {name}, {gb} GB.</translation>
    </message>
    <message>
        <source>needs an NVIDIA GPU (its memory need is known once downloaded)</source>
        <translation>braucht eine NVIDIA-GPU (wie viel Speicher, zeigt sich nach dem Herunterladen)</translation>
    </message>
    <message>
        <source>needs an NVIDIA GPU with {gb} GB and {variant}</source>
        <translation>braucht eine NVIDIA-GPU mit {gb} GB und {variant}</translation>
    </message>
    <message>
        <source>needs an NVIDIA GPU with {gb} GB</source>
        <translation>braucht eine NVIDIA-GPU mit {gb} GB</translation>
    </message>
    <message>
        <source>too big for this GPU: needs {gb} GB</source>
        <translation>zu groß für diese GPU: braucht {gb} GB</translation>
    </message>
    <message>
        <source>Precision auto here: {name} does not fit in the {gpu}&apos;s memory ({free} GB free of {total} GB), even in int4.</source>
        <translation>Präzision auto hier: {name} passt nicht in den Speicher der {gpu} ({free} GB von {total} GB frei), auch nicht in int4.</translation>
    </message>
    <message>
        <source>Precision auto here: {name} does not fit: in int8 it needs about {gb} GB, and the {gpu} has {free} GB free. In int4 (experimental: it can lower the model&apos;s quality) it needs about {lightest} GB: choose int4 below.</source>
        <translation>Präzision auto hier: {name} passt nicht: In int8 braucht es etwa {gb} GB, und die {gpu} hat {free} GB frei. In int4 (experimentell: kann die Qualität des Modells mindern) braucht es etwa {lightest} GB: Wählen Sie unten int4.</translation>
    </message>
    <message>
        <source>Precision auto here: {precision}: {name} needs about {gb} GB in {precision}, and the {gpu} has {free} GB free.</source>
        <translation>Präzision auto hier: {precision}: {name} braucht in {precision} etwa {gb} GB, und die {gpu} hat {free} GB frei.</translation>
    </message>
    <message>
        <source>bfloat16 would need about {gb} GB.</source>
        <translation>bfloat16 bräuchte etwa {gb} GB.</translation>
    </message>
    <message>
        <source>This GPU has no native bfloat16, which it emulates: the frame may not run in real time.</source>
        <translation>Diese GPU hat kein natives bfloat16 und emuliert es: Der Frame läuft womöglich nicht in Echtzeit.</translation>
    </message>
    <message>
        <source>Parley was not tested with a particular commit of {repo}: it will keep to the commit of its first download here.</source>
        <translation>Parley wurde mit keinem bestimmten Commit von {repo} getestet: Es bleibt beim Commit seines ersten Downloads hier.</translation>
    </message>
    <message>
        <source>Revision {revision} of {repo} (the one Parley was tested with).</source>
        <translation>Revision {revision} von {repo} (die, mit der Parley getestet wurde).</translation>
    </message>
    <message>
        <source>Revision {revision} of {repo} (the one first downloaded here).</source>
        <translation>Revision {revision} von {repo} (die hier zuerst heruntergeladene).</translation>
    </message>
    <message>
        <source>Revision {revision} of {repo} (chosen here by an update).</source>
        <translation>Revision {revision} von {repo} (hier durch ein Update gewählt).</translation>
    </message>
    <message>
        <source>Revision {revision} is offered: &apos;Update to {revision}&apos; switches to it.</source>
        <translation>Revision {revision} wird angeboten: „Auf {revision} aktualisieren“ wechselt dorthin.</translation>
    </message>
    <message>
        <source>known once downloaded</source>
        <translation>bekannt nach dem Herunterladen</translation>
    </message>
    <message>
        <source>{captions}: runs here</source>
        <translation>{captions}: läuft hier</translation>
    </message>
    <message>
        <source>{captions}: does not fit in this computer&apos;s memory</source>
        <translation>{captions}: passt nicht in den Speicher dieses Computers</translation>
    </message>
    <message>
        <source>{captions}: needs an NVIDIA GPU with {gb} GB</source>
        <translation>{captions}: braucht eine NVIDIA-GPU mit {gb} GB</translation>
    </message>
    <message>
        <source>{captions}: does not fit beside it on this {total} GB GPU (the pair needs {gb} GB)</source>
        <translation>{captions}: passt nicht daneben auf diese GPU mit {total} GB (beide Modelle brauchen {gb} GB)</translation>
    </message>
    <message>
        <source>{captions}: fits in {precision} ({gb} GB)</source>
        <translation>{captions}: passt in {precision} ({gb} GB)</translation>
    </message>
    <message>
        <source>A voice model reads text aloud; this one needs an NVIDIA GPU.</source>
        <translation>Ein Stimmmodell liest Text vor; dieses braucht eine NVIDIA-GPU.</translation>
    </message>
    <message>
        <source>A voice model reads the conversation&apos;s turns aloud (a turn&apos;s menu: Read aloud); this one runs on any CPU, no GPU needed. Parley downloads it with its shipped voices from the ungated {plain}; a voice made from your own recording needs the gated {cloning} (accept its terms on Hugging Face), which Parley uses once it is in the cache.</source>
        <translation>Ein Stimmmodell liest die Beiträge des Gesprächs vor (Menü eines Beitrags: Vorlesen); dieses läuft auf jedem Prozessor, ohne GPU. Parley lädt es mit seinen mitgelieferten Stimmen aus dem frei zugänglichen {plain}; eine Stimme aus Ihrer eigenen Aufnahme braucht das zugangsbeschränkte {cloning} (akzeptieren Sie seine Bedingungen auf Hugging Face), das Parley verwendet, sobald es im Cache liegt.</translation>
    </message>
    <message>
        <source>Remove {name} from this computer? Its files in {folder} are deleted; you can download it again later.</source>
        <translation>{name} von diesem Computer entfernen? Seine Dateien in {folder} werden gelöscht; Sie können es später wieder herunterladen.</translation>
    </message>
</context>
<context>
    <name>ModelManagerDialog</name>
    <message>
        <source>Models</source>
        <translation>Modelle</translation>
    </message>
    <message>
        <source>Cancel download</source>
        <translation>Download abbrechen</translation>
    </message>
    <message>
        <source>auto: the heaviest precision that fits in the GPU&apos;s free memory (bfloat16, else int8); int4 is experimental: it fits an 8 GB card but can lower the model&apos;s quality</source>
        <translation>auto: die schwerste Präzision, die in den freien Speicher der GPU passt (bfloat16, sonst int8); int4 ist experimentell: Es passt auf eine 8-GB-Karte, kann aber die Qualität des Modells mindern</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Präzision</translation>
    </message>
    <message>
        <source>Open models folder</source>
        <translation>Modellordner öffnen</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>Herunterladen</translation>
    </message>
    <message>
        <source>Check for update</source>
        <translation>Nach Update suchen</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>Delete this voice model&apos;s files from this computer</source>
        <translation>Die Dateien dieses Stimmmodells von diesem Computer löschen</translation>
    </message>
    <message>
        <source>Use this model</source>
        <translation>Dieses Modell verwenden</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <source>Your language model...</source>
        <translation>Ihr Sprachmodell...</translation>
    </message>
    <message>
        <source>not downloaded</source>
        <translation>nicht heruntergeladen</translation>
    </message>
    <message numerus="yes">
        <source>partly downloaded (%n files missing)</source>
        <translation>
            <numerusform>teilweise heruntergeladen (%n Datei fehlt)</numerusform>
            <numerusform>teilweise heruntergeladen (%n Dateien fehlen)</numerusform>
        </translation>
    </message>
    <message>
        <source>unknown: {problem}</source>
        <translation>unbekannt: {problem}</translation>
    </message>
    <message>
        <source>built on first use (about a minute)</source>
        <translation>wird bei der ersten Verwendung erstellt (etwa eine Minute)</translation>
    </message>
    <message>
        <source>in use · {badge}</source>
        <translation>in Gebrauch · {badge}</translation>
    </message>
    <message>
        <source>{gb} GB</source>
        <translation>{gb} GB</translation>
    </message>
    <message>
        <source>With captions: {each}.</source>
        <translation>Mit Untertiteln: {each}.</translation>
    </message>
    <message>
        <source>A caption model writes what the person says: it runs beside a conversation model, and is not one to talk to.</source>
        <translation>Ein Untertitelmodell schreibt, was die Person sagt: Es läuft neben einem Gesprächsmodell, mit ihm selbst spricht man nicht.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Non-commercial use only&lt;/b&gt; ({licence}).</source>
        <translation>&lt;b&gt;Nur für nichtkommerzielle Nutzung&lt;/b&gt; ({licence}).</translation>
    </message>
    <message>
        <source>&lt;b&gt;Licence:&lt;/b&gt; {licence}. This model is gated: open &lt;a href=&apos;{page}&apos;&gt;{page}&lt;/a&gt;, accept the terms while logged in, then set HF_TOKEN (or run &lt;code&gt;hf auth login&lt;/code&gt;) before downloading.</source>
        <translation>&lt;b&gt;Lizenz:&lt;/b&gt; {licence}. Dieses Modell ist zugangsbeschränkt: Öffnen Sie &lt;a href=&apos;{page}&apos;&gt;{page}&lt;/a&gt;, akzeptieren Sie die Bedingungen angemeldet und setzen Sie dann HF_TOKEN (oder führen Sie &lt;code&gt;hf auth login&lt;/code&gt; aus), bevor Sie herunterladen.</translation>
    </message>
    <message>
        <source>Source: &lt;a href=&apos;{page}&apos;&gt;{page}&lt;/a&gt; · licence {licence}</source>
        <translation>Quelle: &lt;a href=&apos;{page}&apos;&gt;{page}&lt;/a&gt; · Lizenz {licence}</translation>
    </message>
    <message>
        <source>Update to {revision}</source>
        <translation>Auf {revision} aktualisieren</translation>
    </message>
    <message>
        <source>Downloading {name}...</source>
        <translation>{name} wird heruntergeladen...</translation>
    </message>
    <message>
        <source>{name} is about {gb} GB. The disk that holds {folder} has {free} GB free.</source>
        <translation>{name} ist etwa {gb} GB groß. Auf dem Laufwerk mit {folder} sind {free} GB frei.</translation>
    </message>
    <message>
        <source>That is not enough: free some space first.</source>
        <translation>Das reicht nicht: Geben Sie zuerst Platz frei.</translation>
    </message>
    <message>
        <source>It {badge}: on this computer it would not run in real time.</source>
        <translation>Es {badge}: Auf diesem Computer liefe es nicht in Echtzeit.</translation>
    </message>
    <message>
        <source>Download {name}?</source>
        <translation>{name} herunterladen?</translation>
    </message>
    <message>
        <source>Remove {name}?</source>
        <translation>{name} entfernen?</translation>
    </message>
    <message numerus="yes">
        <source>Removed {name} (%n files).</source>
        <translation>
            <numerusform>{name} entfernt (%n Datei).</numerusform>
            <numerusform>{name} entfernt (%n Dateien).</numerusform>
        </translation>
    </message>
    <message>
        <source>{name} could not be removed: {problem}</source>
        <translation>{name} konnte nicht entfernt werden: {problem}</translation>
    </message>
    <message>
        <source>Asking the hub about {name}...</source>
        <translation>Der Hub wird nach {name} gefragt...</translation>
    </message>
    <message>
        <source>Updating {name} to {revision}...</source>
        <translation>{name} wird auf {revision} aktualisiert...</translation>
    </message>
    <message>
        <source>Download cancelled; completed files are kept, the rest restarts next time.</source>
        <translation>Download abgebrochen; fertige Dateien bleiben erhalten, der Rest beginnt beim nächsten Mal neu.</translation>
    </message>
    <message>
        <source>{what} {done} / {total} GB</source>
        <translation>{what} {done} / {total} GB</translation>
    </message>
    <message>
        <source>Downloaded to {folder}</source>
        <translation>Heruntergeladen nach {folder}</translation>
    </message>
    <message>
        <source>Checking for an update failed: {problem}</source>
        <translation>Die Suche nach einem Update ist fehlgeschlagen: {problem}</translation>
    </message>
    <message>
        <source>Download failed: {problem}</source>
        <translation>Der Download ist fehlgeschlagen: {problem}</translation>
    </message>
    <message>
        <source>{name} is up to date: the hub&apos;s main is at {revision}, the revision in use.</source>
        <translation>{name} ist aktuell: main auf dem Hub steht auf {revision}, der verwendeten Revision.</translation>
    </message>
    <message>
        <source>The hub has another revision of {name}: {revision} (in use: {in_use}). &apos;Update to {revision}&apos; downloads it (files that did not change are not downloaded again); until then nothing changes.</source>
        <translation>Der Hub hat eine andere Revision von {name}: {revision} (in Gebrauch: {in_use}). „Auf {revision} aktualisieren“ lädt sie herunter (unveränderte Dateien werden nicht erneut geladen); bis dahin ändert sich nichts.</translation>
    </message>
    <message>
        <source>none yet</source>
        <translation>noch keine</translation>
    </message>
</context>
<context>
    <name>ModelTexts</name>
    <message>
        <source>{name} {untrained}: a tiny random-weight model built on this machine</source>
        <translation>{name} {untrained}: ein winziges Modell mit Zufallsgewichten, auf diesem Rechner erstellt</translation>
    </message>
    <message>
        <source>exercises the whole pipeline</source>
        <translation>durchläuft die ganze Verarbeitungskette</translation>
    </message>
    <message>
        <source>Moshi with a male voice (kyutai), bf16 weights</source>
        <translation>Moshi mit Männerstimme (kyutai), bf16-Gewichte</translation>
    </message>
    <message>
        <source>Moshi with a female voice (kyutai), bf16 weights</source>
        <translation>Moshi mit Frauenstimme (kyutai), bf16-Gewichte</translation>
    </message>
    <message>
        <source>Moshi with a female voice, RL-aligned by kyutai for better turn-taking (pauses, backchannels, interruptions)</source>
        <translation>Moshi mit Frauenstimme, von kyutai per RL für besseren Sprecherwechsel ausgerichtet (Pausen, Rückmeldungen, Unterbrechungen)</translation>
    </message>
    <message>
        <source>PersonaPlex-7B (NVIDIA): choose a voice and a text role prompt</source>
        <translation>PersonaPlex-7B (NVIDIA): wählen Sie eine Stimme und eine Rollenbeschreibung</translation>
    </message>
    <message>
        <source>PersonaPlex-7B RL-aligned by kyutai for better turn-taking (pauses, backchannels, interruptions)</source>
        <translation>PersonaPlex-7B, von kyutai per RL für besseren Sprecherwechsel ausgerichtet (Pausen, Rückmeldungen, Unterbrechungen)</translation>
    </message>
    <message>
        <source>choose a voice and a text role prompt</source>
        <translation>wählen Sie eine Stimme und eine Rollenbeschreibung</translation>
    </message>
    <message>
        <source>Hibiki-Zero 3B (kyutai): live interpreter, French, Spanish, Portuguese or German speech in, English speech and text out</source>
        <translation>Hibiki-Zero 3B (kyutai): Live-Dolmetscher, Sprache auf Französisch, Spanisch, Portugiesisch oder Deutsch hinein, Sprache und Text auf Englisch heraus</translation>
    </message>
    <message>
        <source>Hibiki 2B (kyutai): live interpreter, French speech in, English speech and text out</source>
        <translation>Hibiki 2B (kyutai): Live-Dolmetscher, Sprache auf Französisch hinein, Sprache und Text auf Englisch heraus</translation>
    </message>
    <message>
        <source>Hibiki-M 1B (kyutai): live interpreter, French speech in, English speech and text out</source>
        <translation>Hibiki-M 1B (kyutai): Live-Dolmetscher, Sprache auf Französisch hinein, Sprache und Text auf Englisch heraus</translation>
    </message>
    <message>
        <source>8 codebooks per stream</source>
        <translation>8 Codebücher je Strom</translation>
    </message>
    <message>
        <source>{name} {untrained}: a tiny random-weight model in Hibiki-Zero&apos;s layout built on this machine; it translates nothing</source>
        <translation>{name} {untrained}: ein winziges Modell mit Zufallsgewichten im Aufbau von Hibiki-Zero, auf diesem Rechner erstellt; es übersetzt nichts</translation>
    </message>
    <message>
        <source>exercises the interpreter path</source>
        <translation>durchläuft den Weg des Dolmetschers</translation>
    </message>
    <message>
        <source>{name} {untrained}: a tiny random-weight model in Kyutai STT 1B&apos;s layout built on this machine</source>
        <translation>{name} {untrained}: ein winziges Modell mit Zufallsgewichten im Aufbau von Kyutai STT 1B, auf diesem Rechner erstellt</translation>
    </message>
    <message>
        <source>exercises the captioning path</source>
        <translation>durchläuft den Weg der Untertitel</translation>
    </message>
    <message>
        <source>Kyutai STT 1B: English and French speech to text, 0.5 s behind the words</source>
        <translation>Kyutai STT 1B: Sprache zu Text auf Englisch und Französisch, 0,5 s hinter den Worten</translation>
    </message>
    <message>
        <source>with voice-activity heads</source>
        <translation>mit Köpfen für Sprachaktivität</translation>
    </message>
    <message>
        <source>Kyutai STT 2.6B: English speech to text, 2.5 s behind the words</source>
        <translation>Kyutai STT 2.6B: Sprache zu Text auf Englisch, 2,5 s hinter den Worten</translation>
    </message>
    <message>
        <source>Kyutai TTS 1.6B: English and French text to speech, word by word as the text arrives, with kyutai&apos;s voices</source>
        <translation>Kyutai TTS 1.6B: Sprachausgabe auf Englisch und Französisch, Wort für Wort, während der Text eintrifft, mit den Stimmen von kyutai</translation>
    </message>
    <message>
        <source>in English</source>
        <translation>auf Englisch</translation>
    </message>
    <message>
        <source>in French</source>
        <translation>auf Französisch</translation>
    </message>
    <message>
        <source>in German</source>
        <translation>auf Deutsch</translation>
    </message>
    <message>
        <source>in Portuguese</source>
        <translation>auf Portugiesisch</translation>
    </message>
    <message>
        <source>in Italian</source>
        <translation>auf Italienisch</translation>
    </message>
    <message>
        <source>in Spanish</source>
        <translation>auf Spanisch</translation>
    </message>
    <message>
        <source>in Dutch</source>
        <translation>auf Niederländisch</translation>
    </message>
    <message>
        <source>Pocket TTS {language}, {layers} layers: text to speech with its shipped voices</source>
        <translation>Pocket TTS {language}, {layers} Schichten: Sprachausgabe mit den mitgelieferten Stimmen</translation>
    </message>
    <message>
        <source>needs an NVIDIA GPU: precision auto loads bfloat16 where it fits in the GPU&apos;s free memory, else int8 weights (int4 is experimental and opt-in)</source>
        <translation>braucht eine NVIDIA-GPU: Präzision auto lädt bfloat16, wo es in den freien GPU-Speicher passt, sonst int8-Gewichte (int4 ist experimentell und nur auf Wunsch)</translation>
    </message>
    <message>
        <source>runs on an NVIDIA GPU or, slowly, on the CPU</source>
        <translation>läuft auf einer NVIDIA-GPU oder, langsam, auf der CPU</translation>
    </message>
    <message>
        <source>runs on the CPU in real time</source>
        <translation>läuft in Echtzeit auf der CPU</translation>
    </message>
    <message>
        <source>{first}; {then}</source>
        <translation>{first}; {then}</translation>
    </message>
    <message>
        <source>{gb} GB in {precision}</source>
        <translation>{gb} GB in {precision}</translation>
    </message>
    <message>
        <source>GPU memory in use, as measured on an {gpu} after live frames: {each}.</source>
        <translation>Belegter GPU-Speicher, gemessen auf einer {gpu} nach Live-Frames: {each}.</translation>
    </message>
    <message>
        <source>Licence: {licence}.</source>
        <translation>Lizenz: {licence}.</translation>
    </message>
    <message>
        <source>Non-commercial use only: not for work you are paid for or a product you sell.</source>
        <translation>Nur für nichtkommerzielle Nutzung: nicht für bezahlte Arbeit oder ein Produkt, das Sie verkaufen.</translation>
    </message>
    <message>
        <source>Gated: accept its terms on Hugging Face (logged in) and give Parley your access token before downloading.</source>
        <translation>Zugangsbeschränkt: Akzeptieren Sie die Bedingungen auf Hugging Face (angemeldet) und geben Sie Parley Ihr Zugriffstoken, bevor Sie herunterladen.</translation>
    </message>
    <message>
        <source>non-commercial</source>
        <translation>nichtkommerziell</translation>
    </message>
    <message>
        <source>gated: accept on Hugging Face</source>
        <translation>zugangsbeschränkt: auf Hugging Face akzeptieren</translation>
    </message>
    <message>
        <source>{licence} ({notes})</source>
        <translation>{licence} ({notes})</translation>
    </message>
</context>
<context>
    <name>ModelsModel</name>
    <message>
        <source>reading the weights and choosing the fastest kernels for this computer...</source>
        <translation>die Gewichte werden gelesen und die schnellsten Kernel für diesen Computer gewählt...</translation>
    </message>
    <message>
        <source>on</source>
        <translation>an</translation>
    </message>
    <message>
        <source>warming up</source>
        <translation>wird vorbereitet</translation>
    </message>
    <message>
        <source>off</source>
        <translation>aus</translation>
    </message>
    <message>
        <source>Loading model {name}: {stage}</source>
        <translation>Modell {name} wird geladen: {stage}</translation>
    </message>
    <message>
        <source>No model loaded (Model → Model manager...)</source>
        <translation>Kein Modell geladen (Modell → Modellverwaltung...)</translation>
    </message>
    <message>
        <source> · CUDA graph: {state}</source>
        <translation> · CUDA-Graph: {state}</translation>
    </message>
    <message>
        <source>Model: {label} · {device} · {precision}</source>
        <translation>Modell: {label} · {device} · {precision}</translation>
    </message>
    <message>
        <source>Persona: none (a conversation saved before personas)</source>
        <translation>Persona: keine (ein Gespräch, das vor den Personas gespeichert wurde)</translation>
    </message>
    <message>
        <source>Persona: {name} · waits for you to speak first · this model takes no voice or role</source>
        <translation>Persona: {name} · wartet, bis Sie zuerst sprechen · dieses Modell nimmt weder Stimme noch Rolle</translation>
    </message>
    <message>
        <source>Persona: {name} · this model takes no voice or role</source>
        <translation>Persona: {name} · dieses Modell nimmt weder Stimme noch Rolle</translation>
    </message>
    <message>
        <source>Persona: {name} · voice: {voice} · role: {role}</source>
        <translation>Persona: {name} · Stimme: {voice} · Rolle: {role}</translation>
    </message>
    <message>
        <source>Voice: {voice}</source>
        <translation>Stimme: {voice}</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
</context>
<context>
    <name>Notices</name>
    <message>
        <source>The conversation is back in Parley&apos;s window; save it to keep it.</source>
        <translation>Das Gespräch ist zurück im Fenster von Parley; speichern Sie es, um es zu behalten.</translation>
    </message>
    <message>
        <source>Parley: conversation recovered</source>
        <translation>Parley: Gespräch wiederhergestellt</translation>
    </message>
    <message>
        <source>Parley: recovery stopped</source>
        <translation>Parley: Wiederherstellung abgebrochen</translation>
    </message>
    <message>
        <source>Parley: model download</source>
        <translation>Parley: Modell-Download</translation>
    </message>
</context>
<context>
    <name>OpenMic</name>
    <message>
        <source>Open mic is on, with echo cancellation: speakers work; headphones still sound cleanest.</source>
        <translation>Offenes Mikrofon ist an, mit Echounterdrückung: Lautsprecher funktionieren; Kopfhörer klingen immer noch am saubersten.</translation>
    </message>
    <message>
        <source>Open mic is on and echo cancellation is unavailable: use headphones, or the assistant will hear itself.</source>
        <translation>Offenes Mikrofon ist an und Echounterdrückung ist nicht verfügbar: Verwenden Sie Kopfhörer, sonst hört sich der Assistent selbst.</translation>
    </message>
    <message>
        <source>Open mic is on and echo cancellation is off (Audio menu): use headphones, or the assistant will hear itself.</source>
        <translation>Offenes Mikrofon ist an und Echounterdrückung ist aus (Menü Audio): Verwenden Sie Kopfhörer, sonst hört sich der Assistent selbst.</translation>
    </message>
</context>
<context>
    <name>PersonaDialog</name>
    <message>
        <source>Choosing a persona starts a new conversation with it; the current conversation is kept in the library. Edits of the personas that come with Parley are saved as your own copy, which Reset undoes.</source>
        <translation>Eine Persona zu wählen startet ein neues Gespräch mit ihr; das aktuelle Gespräch bleibt in der Bibliothek. Änderungen an den mitgelieferten Personas werden als Ihre eigene Kopie gespeichert, die Zurücksetzen rückgängig macht.</translation>
    </message>
    <message>
        <source>{name}  ·  edited</source>
        <translation>{name}  ·  geändert</translation>
    </message>
    <message>
        <source>{name}  ·  yours</source>
        <translation>{name}  ·  eigene</translation>
    </message>
    <message>
        <source>{name}  ·  damaged</source>
        <translation>{name}  ·  beschädigt</translation>
    </message>
    <message>
        <source>Personas</source>
        <translation>Personas</translation>
    </message>
    <message>
        <source>personas</source>
        <translation>Personas</translation>
    </message>
    <message>
        <source>Ne&amp;w</source>
        <translation>N&amp;eu</translation>
    </message>
    <message>
        <source>A new persona with the selected one&apos;s settings</source>
        <translation>Eine neue Persona mit den Einstellungen der gewählten</translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation>&amp;Löschen</translation>
    </message>
    <message>
        <source>S&amp;ave</source>
        <translation>Spei&amp;chern</translation>
    </message>
    <message>
        <source>Start &amp;conversation</source>
        <translation>&amp;Gespräch starten</translation>
    </message>
    <message>
        <source>voice</source>
        <translation>Stimme</translation>
    </message>
    <message>
        <source>role</source>
        <translation>Rolle</translation>
    </message>
    <message>
        <source>Empty: the model&apos;s default role ({role})</source>
        <translation>Leer: die Standardrolle des Modells ({role})</translation>
    </message>
    <message>
        <source>Temperature of speech</source>
        <translation>Temperatur der Sprache</translation>
    </message>
    <message>
        <source>How varied the speech is (0 = always the likeliest; default {value})</source>
        <translation>Wie abwechslungsreich die Sprache ist (0 = immer das Wahrscheinlichste; Standard {value})</translation>
    </message>
    <message>
        <source>Temperature of words</source>
        <translation>Temperatur der Wörter</translation>
    </message>
    <message>
        <source>How varied the words are (default {value})</source>
        <translation>Wie abwechslungsreich die Wörter sind (Standard {value})</translation>
    </message>
    <message>
        <source>Top-k of speech</source>
        <translation>Top-k der Sprache</translation>
    </message>
    <message>
        <source>Audio tokens to choose from (default {value})</source>
        <translation>Audio-Token zur Auswahl (Standard {value})</translation>
    </message>
    <message>
        <source>Top-k of words</source>
        <translation>Top-k der Wörter</translation>
    </message>
    <message>
        <source>Words to choose from (default {value})</source>
        <translation>Wörter zur Auswahl (Standard {value})</translation>
    </message>
    <message>
        <source>Style</source>
        <translation>Stil</translation>
    </message>
    <message>
        <source>How varied the assistant&apos;s speech and words are.</source>
        <translation>Wie abwechslungsreich Sprache und Wörter des Assistenten sind.</translation>
    </message>
    <message>
        <source>Numbers...</source>
        <translation>Zahlen...</translation>
    </message>
    <message>
        <source>Show the sampling settings the style stands for (temperature and top-k).</source>
        <translation>Die Sampling-Einstellungen zeigen, für die der Stil steht (Temperatur und Top-k).</translation>
    </message>
    <message>
        <source>speech</source>
        <translation>Sprache</translation>
    </message>
    <message>
        <source>words</source>
        <translation>Wörter</translation>
    </message>
    <message>
        <source>Wait for me to speak first</source>
        <translation>Warten, bis ich zuerst spreche</translation>
    </message>
    <message>
        <source>The assistant stays silent until you press Talk or speak.</source>
        <translation>Der Assistent schweigt, bis Sie auf Sprechen drücken oder sprechen.</translation>
    </message>
    <message>
        <source>&amp;Name</source>
        <translation>&amp;Name</translation>
    </message>
    <message>
        <source>&amp;Voice</source>
        <translation>&amp;Stimme</translation>
    </message>
    <message>
        <source>&amp;Role</source>
        <translation>&amp;Rolle</translation>
    </message>
    <message>
        <source>&amp;Style</source>
        <translation>S&amp;til</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Temperatur</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>The personas that come with Parley keep their names; New makes one of yours.</source>
        <translation>Die mitgelieferten Personas behalten ihren Namen; Neu erstellt eine eigene.</translation>
    </message>
    <message>
        <source>R&amp;eset</source>
        <translation>&amp;Zurücksetzen</translation>
    </message>
    <message>
        <source>Comes with Parley: cannot be deleted</source>
        <translation>Mit Parley geliefert: kann nicht gelöscht werden</translation>
    </message>
    <message>
        <source>Undo your changes: back to how Parley ships it</source>
        <translation>Ihre Änderungen verwerfen: zurück zur ausgelieferten Fassung</translation>
    </message>
    <message>
        <source>Delete this persona</source>
        <translation>Diese Persona löschen</translation>
    </message>
</context>
<context>
    <name>PersonasModel</name>
    <message>
        <source>This model has no voice or role prompt: it speaks in the voice it was trained with. The style and &quot;wait for me&quot; apply; the voice and role are kept for PersonaPlex.</source>
        <translation>Dieses Modell hat keine Stimm- oder Rollenvorgabe: Es spricht mit der Stimme, mit der es trainiert wurde. Stil und „Warten, bis ich spreche“ gelten; Stimme und Rolle bleiben für PersonaPlex erhalten.</translation>
    </message>
    <message>
        <source>PersonaPlex speaks with the persona&apos;s voice and plays its role.</source>
        <translation>PersonaPlex spricht mit der Stimme der Persona und spielt ihre Rolle.</translation>
    </message>
    <message>
        <source>The voice and role apply to PersonaPlex models; the style and &quot;wait for me&quot; to every model.</source>
        <translation>Stimme und Rolle gelten für PersonaPlex-Modelle; Stil und „Warten, bis ich spreche“ für jedes Modell.</translation>
    </message>
    <message>
        <source>Steady</source>
        <translation>Beständig</translation>
    </message>
    <message>
        <source>Keeps to the likeliest words and sounds: predictable, sometimes flat.</source>
        <translation>Bleibt bei den wahrscheinlichsten Wörtern und Klängen: vorhersehbar, manchmal flach.</translation>
    </message>
    <message>
        <source>Calm</source>
        <translation>Ruhig</translation>
    </message>
    <message>
        <source>A little less varied than Balanced: unhurried and clear.</source>
        <translation>Etwas weniger abwechslungsreich als Ausgewogen: gelassen und klar.</translation>
    </message>
    <message>
        <source>Balanced</source>
        <translation>Ausgewogen</translation>
    </message>
    <message>
        <source>The model&apos;s own defaults.</source>
        <translation>Die Standardwerte des Modells.</translation>
    </message>
    <message>
        <source>Relaxed</source>
        <translation>Locker</translation>
    </message>
    <message>
        <source>The words vary more than Balanced; the voice the same.</source>
        <translation>Die Wörter variieren mehr als bei Ausgewogen; die Stimme bleibt gleich.</translation>
    </message>
    <message>
        <source>Lively</source>
        <translation>Lebhaft</translation>
    </message>
    <message>
        <source>Varied speech and words: surprising, now and then off the point.</source>
        <translation>Abwechslungsreiche Sprache und Wörter: überraschend, ab und zu am Thema vorbei.</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>Eigene</translation>
    </message>
    <message>
        <source>Set with the numbers (Numbers...).</source>
        <translation>Mit den Zahlen eingestellt (Zahlen...).</translation>
    </message>
    <message>
        <source>the model&apos;s default voice</source>
        <translation>die Standardstimme des Modells</translation>
    </message>
    <message>
        <source>no voice prompt</source>
        <translation>keine Stimmvorgabe</translation>
    </message>
    <message>
        <source>My persona</source>
        <translation>Meine Persona</translation>
    </message>
    <message>
        <source>My persona {n}</source>
        <translation>Meine Persona {n}</translation>
    </message>
    <message>
        <source>Made {name}; edit it and save.</source>
        <translation>{name} erstellt; bearbeiten und speichern.</translation>
    </message>
    <message>
        <source>Saved {name}.</source>
        <translation>{name} gespeichert.</translation>
    </message>
    <message>
        <source>Reset {name}.</source>
        <translation>{name} zurückgesetzt.</translation>
    </message>
    <message>
        <source>Deleted {name}.</source>
        <translation>{name} gelöscht.</translation>
    </message>
</context>
<context>
    <name>PlaybackCapture</name>
    <message>
        <source>What {device} plays</source>
        <translation>Was {device} abspielt</translation>
    </message>
    <message>
        <source>this PortAudio has no WASAPI loopback inputs</source>
        <translation>dieses PortAudio hat keine WASAPI-Loopback-Eingänge</translation>
    </message>
    <message>
        <source>macOS needs a loopback device (such as BlackHole): make it the output of what you want to hear, and choose it here as the input</source>
        <translation>macOS braucht ein Loopback-Gerät (etwa BlackHole): Machen Sie es zum Ausgang dessen, was Sie hören wollen, und wählen Sie es hier als Eingang</translation>
    </message>
    <message>
        <source>it needs PulseAudio or PipeWire and their ALSA plugin (the &apos;pulse&apos; device)</source>
        <translation>dafür braucht es PulseAudio oder PipeWire und ihr ALSA-Plugin (das Gerät „pulse“)</translation>
    </message>
    <message>
        <source>the sound server&apos;s outputs cannot be listed ({problem})</source>
        <translation>die Ausgänge des Soundservers lassen sich nicht auflisten ({problem})</translation>
    </message>
    <message>
        <source>the sound server has no outputs</source>
        <translation>der Soundserver hat keine Ausgänge</translation>
    </message>
</context>
<context>
    <name>PortalGrab</name>
    <message>
        <source>This desktop offers programs no desktop-wide keys (its portal has no GlobalShortcuts interface: {detail}).</source>
        <translation>Dieser Desktop bietet Programmen keine systemweiten Tasten (sein Portal hat keine GlobalShortcuts-Schnittstelle: {detail}).</translation>
    </message>
    <message>
        <source>A desktop-wide key on Wayland needs the Python package jeepney, which is not installed.</source>
        <translation>Eine systemweite Taste unter Wayland braucht das Python-Paket jeepney, das nicht installiert ist.</translation>
    </message>
    <message>
        <source>Parley could not reach the desktop&apos;s session bus for a desktop-wide key ({problem}).</source>
        <translation>Parley konnte den Sitzungsbus des Desktops für eine systemweite Taste nicht erreichen ({problem}).</translation>
    </message>
    <message>
        <source>The desktop refused a desktop-wide key: {detail}.</source>
        <translation>Der Desktop hat eine systemweite Taste abgelehnt: {detail}.</translation>
    </message>
    <message>
        <source>The desktop would not open a session for desktop-wide keys.</source>
        <translation>Der Desktop wollte keine Sitzung für systemweite Tasten öffnen.</translation>
    </message>
    <message>
        <source>Talk to Parley</source>
        <translation>Mit Parley sprechen</translation>
    </message>
    <message>
        <source>You turned the desktop-wide key down in the desktop&apos;s question; choose it again in Audio → Talk key to be asked again.</source>
        <translation>Sie haben die systemweite Taste in der Frage des Desktops abgelehnt; wählen Sie sie erneut unter Audio → Sprechtaste, um wieder gefragt zu werden.</translation>
    </message>
    <message>
        <source>The desktop did not give Parley {key} or another key.</source>
        <translation>Der Desktop hat Parley weder {key} noch eine andere Taste gegeben.</translation>
    </message>
    <message>
        <source>The desktop&apos;s session bus went away ({problem}); the desktop-wide key stopped.</source>
        <translation>Der Sitzungsbus des Desktops ist weg ({problem}); die systemweite Taste wurde beendet.</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>Su&amp;chen in:</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>Datei&amp;typ:</translation>
    </message>
</context>
<context>
    <name>ReadAloud</name>
    <message>
        <source>Read aloud needs a Pocket TTS voice model: download one in the model manager (Model menu, Model manager).</source>
        <translation>Vorlesen braucht ein Pocket-TTS-Stimmmodell: Laden Sie eines in der Modellverwaltung herunter (Menü Modell, Modellverwaltung).</translation>
    </message>
    <message>
        <source>This turn has no words to read.</source>
        <translation>Dieser Beitrag hat keine Wörter zum Vorlesen.</translation>
    </message>
    <message>
        <source>Reading aloud with {voice} ({model}); Esc stops.</source>
        <translation>Vorlesen mit {voice} ({model}); Esc hält an.</translation>
    </message>
    <message>
        <source>Reading aloud failed: {problem}</source>
        <translation>Vorlesen fehlgeschlagen: {problem}</translation>
    </message>
</context>
<context>
    <name>ReadAloudControls</name>
    <message>
        <source>Read aloud</source>
        <translation>Vorlesen</translation>
    </message>
    <message>
        <source>Stop reading</source>
        <translation>Vorlesen anhalten</translation>
    </message>
    <message>
        <source>Stop reading aloud (Esc)</source>
        <translation>Vorlesen anhalten (Esc)</translation>
    </message>
    <message>
        <source>Model manager...</source>
        <translation>Modellverwaltung...</translation>
    </message>
    <message>
        <source>Read aloud with {voice}</source>
        <translation>Mit {voice} vorlesen</translation>
    </message>
    <message>
        <source>Voice</source>
        <translation>Stimme</translation>
    </message>
</context>
<context>
    <name>RecordVoiceDialog</name>
    <message>
        <source>The North Wind and the Sun were disputing which was the stronger, when a traveller came along wrapped in a warm cloak. They agreed that the one who first succeeded in making the traveller take his cloak off should be considered stronger than the other. Then the North Wind blew as hard as he could, but the more he blew, the more closely did the traveller fold his cloak around him; and at last the North Wind gave up the attempt. Then the Sun shone out warmly, and immediately the traveller took off his cloak.</source>
        <translation>Einst stritten sich Nordwind und Sonne, wer von ihnen beiden wohl der Stärkere wäre, als ein Wanderer, der in einen warmen Mantel gehüllt war, des Weges daherkam. Sie wurden einig, dass derjenige für den Stärkeren gelten sollte, der den Wanderer zwingen würde, seinen Mantel abzunehmen. Der Nordwind blies mit aller Macht, aber je mehr er blies, desto fester hüllte sich der Wanderer in seinen Mantel ein. Endlich gab der Nordwind den Kampf auf. Nun erwärmte die Sonne die Luft mit ihren freundlichen Strahlen, und schon nach wenigen Augenblicken zog der Wanderer seinen Mantel aus.</translation>
    </message>
    <message>
        <source>Record a voice</source>
        <translation>Eine Stimme aufnehmen</translation>
    </message>
    <message>
        <source>Press Record and read this aloud in your usual voice, for {least} to {most} seconds:</source>
        <translation>Klicken Sie auf Aufnehmen und lesen Sie dies mit Ihrer gewohnten Stimme {least} bis {most} Sekunden lang vor:</translation>
    </message>
    <message>
        <source>Microphone</source>
        <translation>Mikrofon</translation>
    </message>
    <message>
        <source>recorded length</source>
        <translation>aufgenommene Länge</translation>
    </message>
    <message>
        <source>&amp;Record</source>
        <translation>&amp;Aufnehmen</translation>
    </message>
    <message>
        <source>&amp;Listen</source>
        <translation>An&amp;hören</translation>
    </message>
    <message>
        <source>&amp;Name</source>
        <translation>&amp;Name</translation>
    </message>
    <message>
        <source>e.g. My voice</source>
        <translation>z. B. Meine Stimme</translation>
    </message>
    <message>
        <source>&amp;Save voice</source>
        <translation>Stimme &amp;speichern</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>&amp;Stopp</translation>
    </message>
    <message>
        <source>Record &amp;again</source>
        <translation>&amp;Erneut aufnehmen</translation>
    </message>
    <message>
        <source>Stop &amp;listening</source>
        <translation>Anhören &amp;beenden</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} s</translation>
    </message>
    <message numerus="yes">
        <source>Recording... %n s more at least.</source>
        <translation>
            <numerusform>Aufnahme... noch mindestens %n s.</numerusform>
            <numerusform>Aufnahme... noch mindestens %n s.</numerusform>
        </translation>
    </message>
    <message>
        <source>Recording... you can stop now, or go on (it stops at {most} s).</source>
        <translation>Aufnahme... Sie können jetzt aufhören oder weitermachen (sie endet bei {most} s).</translation>
    </message>
    <message>
        <source>Listen to it; record again if it does not sound like you, or name it and save it.</source>
        <translation>Hören Sie sie an; nehmen Sie erneut auf, wenn sie nicht nach Ihnen klingt, oder benennen und speichern Sie sie.</translation>
    </message>
    <message>
        <source>Not recording.</source>
        <translation>Keine Aufnahme.</translation>
    </message>
</context>
<context>
    <name>RecoveryDialogs</name>
    <message>
        <source>Delete a crash journal?</source>
        <translation>Ein Absturzjournal löschen?</translation>
    </message>
    <message>
        <source>Parley did not close properly, and the journal of the conversation it was having cannot be read: {problem}

Delete {journal}? &apos;Keep&apos; leaves it there and asks again at the next start.</source>
        <translation>Parley wurde nicht richtig beendet, und das Journal des laufenden Gesprächs kann nicht gelesen werden: {problem}

{journal} löschen? „Behalten“ lässt es liegen und fragt beim nächsten Start erneut.</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <source>Keep</source>
        <translation>Behalten</translation>
    </message>
    <message>
        <source>It was last saved to {file} {duration} before the end.</source>
        <translation>Es wurde zuletzt {duration} vor dem Ende in {file} gespeichert.</translation>
    </message>
    <message>
        <source>Recover conversation?</source>
        <translation>Gespräch wiederherstellen?</translation>
    </message>
    <message>
        <source>Parley did not close properly. Recover the conversation it was having ({duration})?</source>
        <translation>Parley wurde nicht richtig beendet. Das laufende Gespräch ({duration}) wiederherstellen?</translation>
    </message>
    <message>
        <source>&apos;Later&apos; keeps it for the next start.</source>
        <translation>„Später“ behält es für den nächsten Start.</translation>
    </message>
    <message>
        <source>Recover</source>
        <translation>Wiederherstellen</translation>
    </message>
    <message>
        <source>Later</source>
        <translation>Später</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>Verwerfen</translation>
    </message>
    <message>
        <source>Rebuilding the conversation...</source>
        <translation>Das Gespräch wird neu aufgebaut...</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
</context>
<context>
    <name>ReplayBar</name>
    <message>
        <source>Play</source>
        <translation>Abspielen</translation>
    </message>
    <message>
        <source>replay position</source>
        <translation>Wiedergabeposition</translation>
    </message>
    <message>
        <source>You left, assistant right</source>
        <translation>Sie links, Assistent rechts</translation>
    </message>
    <message>
        <source>Off: both sides mixed on both speakers</source>
        <translation>Aus: beide Seiten gemischt auf beiden Lautsprechern</translation>
    </message>
    <message>
        <source>Close replay</source>
        <translation>Wiedergabe schließen</translation>
    </message>
    <message>
        <source>Play or pause the conversation being replayed</source>
        <translation>Das wiedergegebene Gespräch abspielen oder anhalten</translation>
    </message>
    <message>
        <source>Replay: {title}</source>
        <translation>Wiedergabe: {title}</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
</context>
<context>
    <name>ReplayPlayer</name>
    <message>
        <source>Cannot replay {file}: {problem}</source>
        <translation>{file} kann nicht wiedergegeben werden: {problem}</translation>
    </message>
    <message>
        <source>Replay could not open the speaker: {problem}</source>
        <translation>Die Wiedergabe konnte den Lautsprecher nicht öffnen: {problem}</translation>
    </message>
</context>
<context>
    <name>Sides</name>
    <message>
        <source>You</source>
        <translation>Sie</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>Assistent</translation>
    </message>
    <message>
        <source>Original</source>
        <translation>Original</translation>
    </message>
    <message>
        <source>Interpreter</source>
        <translation>Dolmetscher</translation>
    </message>
</context>
<context>
    <name>Sizes</name>
    <message>
        <source>{n} B</source>
        <translation>{n} B</translation>
    </message>
    <message>
        <source>{size} KB</source>
        <translation>{size} KB</translation>
    </message>
    <message>
        <source>{size} MB</source>
        <translation>{size} MB</translation>
    </message>
    <message>
        <source>{size} GB</source>
        <translation>{size} GB</translation>
    </message>
</context>
<context>
    <name>Status</name>
    <message>
        <source>Idle</source>
        <translation>Inaktiv</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>Lädt…</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Bereit</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>Angehalten</translation>
    </message>
    <message>
        <source>Waiting for you</source>
        <translation>Wartet auf Sie</translation>
    </message>
    <message>
        <source>Listening</source>
        <translation>Hört zu</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>Denkt nach</translation>
    </message>
    <message>
        <source>Speaking</source>
        <translation>Spricht</translation>
    </message>
</context>
<context>
    <name>TalkKeyDialog</name>
    <message>
        <source>Talk key</source>
        <translation>Sprechtaste</translation>
    </message>
    <message>
        <source>Talk from any program with a key</source>
        <translation>Mit einer Taste aus jedem Programm sprechen</translation>
    </message>
    <message>
        <source>Space still works while Parley&apos;s window has the focus.</source>
        <translation>Die Leertaste funktioniert weiterhin, wenn das Fenster von Parley den Fokus hat.</translation>
    </message>
    <message>
        <source>Press the key chord to use, for example Ctrl+Alt+Space.</source>
        <translation>Drücken Sie die gewünschte Tastenkombination, zum Beispiel Strg+Alt+Leertaste.</translation>
    </message>
    <message>
        <source>Hold to talk (the microphone is open while the key is held)</source>
        <translation>Zum Sprechen halten (das Mikrofon ist offen, solange die Taste gehalten wird)</translation>
    </message>
    <message>
        <source>Tap to start, tap again to stop</source>
        <translation>Antippen zum Starten, erneut antippen zum Beenden</translation>
    </message>
    <message>
        <source>Key:</source>
        <translation>Taste:</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <source>Keep running in the tray</source>
        <translation>Im Infobereich weiterlaufen</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>Beenden</translation>
    </message>
    <message>
        <source>&amp;Talk</source>
        <translation>&amp;Sprechen</translation>
    </message>
    <message>
        <source>The model hears you until you choose Talk again.</source>
        <translation>Das Modell hört Sie, bis Sie erneut Sprechen wählen.</translation>
    </message>
    <message>
        <source>&amp;Open mic (hands-free)</source>
        <translation>&amp;Offenes Mikrofon (freihändig)</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>&amp;Pause</translation>
    </message>
    <message>
        <source>Stop the frames (the conversation is kept); choose again to go on.</source>
        <translation>Die Frames anhalten (das Gespräch bleibt erhalten); erneut wählen, um fortzufahren.</translation>
    </message>
    <message>
        <source>&amp;End conversation</source>
        <translation>Gespräch &amp;beenden</translation>
    </message>
    <message>
        <source>&amp;Show window</source>
        <translation>Fenster &amp;anzeigen</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>B&amp;eenden</translation>
    </message>
    <message>
        <source>&amp;Keep running in the tray when the window is closed</source>
        <translation>Im &amp;Infobereich weiterlaufen, wenn das Fenster geschlossen wird</translation>
    </message>
    <message>
        <source>Closing the window leaves Parley in the tray.</source>
        <translation>Das Schließen des Fensters lässt Parley im Infobereich.</translation>
    </message>
    <message>
        <source>This desktop has no tray.</source>
        <translation>Dieser Desktop hat keinen Infobereich.</translation>
    </message>
    <message>
        <source>Close Parley</source>
        <translation>Parley schließen</translation>
    </message>
    <message>
        <source>Keep Parley running in the tray when its window is closed? You can change this in View → Keep running in the tray.</source>
        <translation>Parley im Infobereich weiterlaufen lassen, wenn sein Fenster geschlossen wird? Sie können das unter Ansicht → Im Infobereich weiterlaufen ändern.</translation>
    </message>
</context>
<context>
    <name>TrayModel</name>
    <message>
        <source>Parley: idle</source>
        <translation>Parley: inaktiv</translation>
    </message>
    <message>
        <source>Parley: listening to you</source>
        <translation>Parley: hört Ihnen zu</translation>
    </message>
    <message>
        <source>Parley: the assistant is speaking</source>
        <translation>Parley: Der Assistent spricht</translation>
    </message>
    <message>
        <source>Parley: waiting for you to speak first</source>
        <translation>Parley: wartet, bis Sie zuerst sprechen</translation>
    </message>
    <message>
        <source>Parley: too slow for real time</source>
        <translation>Parley: zu langsam für Echtzeit</translation>
    </message>
    <message>
        <source>Parley: {status}</source>
        <translation>Parley: {status}</translation>
    </message>
</context>
<context>
    <name>TurnSentences</name>
    <message>
        <source>Interpreter: {text}</source>
        <translation>Dolmetscher: {text}</translation>
    </message>
    <message>
        <source>Assistant: {text}</source>
        <translation>Assistent: {text}</translation>
    </message>
    <message numerus="yes">
        <source>The interpreter heard %n seconds of speech.</source>
        <translation>
            <numerusform>Der Dolmetscher hat %n Sekunde Sprache gehört.</numerusform>
            <numerusform>Der Dolmetscher hat %n Sekunden Sprache gehört.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The interpreter spoke for %n seconds.</source>
        <translation>
            <numerusform>Der Dolmetscher hat %n Sekunde lang gesprochen.</numerusform>
            <numerusform>Der Dolmetscher hat %n Sekunden lang gesprochen.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>You spoke for %n seconds.</source>
        <translation>
            <numerusform>Sie haben %n Sekunde lang gesprochen.</numerusform>
            <numerusform>Sie haben %n Sekunden lang gesprochen.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The assistant spoke for %n seconds.</source>
        <translation>
            <numerusform>Der Assistent hat %n Sekunde lang gesprochen.</numerusform>
            <numerusform>Der Assistent hat %n Sekunden lang gesprochen.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>VoiceLibraryDialog</name>
    <message>
        <source>Audio (*.wav *.flac *.ogg *.mp3);;All files (*)</source>
        <translation>Audio (*.wav *.flac *.ogg *.mp3);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>NATF0..., VARM...: listed when a PersonaPlex model is loaded.</source>
        <translation>NATF0..., VARM...: aufgeführt, wenn ein PersonaPlex-Modell geladen ist.</translation>
    </message>
    <message>
        <source>Voices</source>
        <translation>Stimmen</translation>
    </message>
    <message>
        <source>PersonaPlex speaks with the voice of its persona (Model &gt; Personas). Your own voices can be chosen there by name, and with &quot;parley offline --voice-prompt NAME&quot;.</source>
        <translation>PersonaPlex spricht mit der Stimme seiner Persona (Modell &gt; Personas). Ihre eigenen Stimmen können dort mit Namen gewählt werden, und mit „parley offline --voice-prompt NAME“.</translation>
    </message>
    <message>
        <source>voices</source>
        <translation>Stimmen</translation>
    </message>
    <message>
        <source>&amp;Record...</source>
        <translation>&amp;Aufnehmen...</translation>
    </message>
    <message>
        <source>&amp;Import...</source>
        <translation>&amp;Importieren...</translation>
    </message>
    <message>
        <source>&amp;Play</source>
        <translation>Ab&amp;spielen</translation>
    </message>
    <message>
        <source>Re&amp;name...</source>
        <translation>&amp;Umbenennen...</translation>
    </message>
    <message>
        <source>Remo&amp;ve</source>
        <translation>&amp;Entfernen</translation>
    </message>
    <message>
        <source>Your voices are kept in {folder}.</source>
        <translation>Ihre Stimmen werden in {folder} aufbewahrt.</translation>
    </message>
    <message>
        <source>Shipped with the model</source>
        <translation>Mit dem Modell geliefert</translation>
    </message>
    <message>
        <source>Your voices</source>
        <translation>Ihre Stimmen</translation>
    </message>
    <message>
        <source>None yet: record one or import a recording.</source>
        <translation>Noch keine: Nehmen Sie eine auf oder importieren Sie eine Aufnahme.</translation>
    </message>
    <message>
        <source>Sto&amp;p</source>
        <translation>S&amp;topp</translation>
    </message>
    <message>
        <source>Shipped voices have no recording to play.</source>
        <translation>Mitgelieferte Stimmen haben keine Aufnahme zum Abspielen.</translation>
    </message>
    <message>
        <source>Import a voice recording</source>
        <translation>Eine Stimmaufnahme importieren</translation>
    </message>
    <message>
        <source>Import a voice</source>
        <translation>Eine Stimme importieren</translation>
    </message>
    <message>
        <source>Name of the voice:</source>
        <translation>Name der Stimme:</translation>
    </message>
    <message>
        <source>Rename a voice</source>
        <translation>Eine Stimme umbenennen</translation>
    </message>
    <message>
        <source>New name for {name}:</source>
        <translation>Neuer Name für {name}:</translation>
    </message>
    <message>
        <source>Remove a voice</source>
        <translation>Eine Stimme entfernen</translation>
    </message>
    <message>
        <source>Delete the voice {name} and its recording?</source>
        <translation>Die Stimme {name} und ihre Aufnahme löschen?</translation>
    </message>
</context>
<context>
    <name>VoiceRecorder</name>
    <message>
        <source>No audio device is open: check the microphone and speaker in the main window.</source>
        <translation>Kein Audiogerät ist geöffnet: Prüfen Sie Mikrofon und Lautsprecher im Hauptfenster.</translation>
    </message>
    <message>
        <source>The audio device changed while recording: record again.</source>
        <translation>Das Audiogerät hat sich während der Aufnahme geändert: Nehmen Sie erneut auf.</translation>
    </message>
</context>
<context>
    <name>VoicesModel</name>
    <message>
        <source>Record or import only your own voice, or a voice used with its owner&apos;s consent. Recordings stay on this computer, readable by you only; nothing is sent anywhere.</source>
        <translation>Nehmen Sie nur Ihre eigene Stimme auf oder importieren Sie sie, oder eine Stimme mit Zustimmung der Person, der sie gehört. Aufnahmen bleiben auf diesem Computer und sind nur für Sie lesbar; nichts wird irgendwohin gesendet.</translation>
    </message>
    <message>
        <source>Saved the voice {name}.</source>
        <translation>Stimme {name} gespeichert.</translation>
    </message>
    <message>
        <source>Imported {name} ({seconds} s).</source>
        <translation>{name} importiert ({seconds} s).</translation>
    </message>
    <message>
        <source>Renamed {old} to {new}.</source>
        <translation>{old} in {new} umbenannt.</translation>
    </message>
    <message>
        <source>Removed {name}.</source>
        <translation>{name} entfernt.</translation>
    </message>
    <message>
        <source>Playing {name}...</source>
        <translation>{name} wird abgespielt...</translation>
    </message>
</context>
<context>
    <name>WindowsGrab</name>
    <message>
        <source>another program already uses it</source>
        <translation>ein anderes Programm verwendet sie bereits</translation>
    </message>
    <message>
        <source>Windows error {code}</source>
        <translation>Windows-Fehler {code}</translation>
    </message>
    <message>
        <source>Windows refused {key} as Parley&apos;s talk key: {why}.</source>
        <translation>Windows hat {key} als Sprechtaste von Parley abgelehnt: {why}.</translation>
    </message>
</context>
<context>
    <name>X11Grab</name>
    <message>
        <source>The X11 library (libX11) is not installed, so no desktop-wide key can be set.</source>
        <translation>Die X11-Bibliothek (libX11) ist nicht installiert, daher kann keine systemweite Taste festgelegt werden.</translation>
    </message>
    <message>
        <source>Parley could not connect to the X display for a desktop-wide key.</source>
        <translation>Parley konnte sich für eine systemweite Taste nicht mit der X-Anzeige verbinden.</translation>
    </message>
    <message>
        <source>This keyboard has no {key} key.</source>
        <translation>Diese Tastatur hat keine Taste {key}.</translation>
    </message>
    <message>
        <source>another program already uses it</source>
        <translation>ein anderes Programm verwendet sie bereits</translation>
    </message>
    <message>
        <source>X error {code}</source>
        <translation>X-Fehler {code}</translation>
    </message>
    <message>
        <source>The desktop refused {key} as Parley&apos;s talk key: {why}.</source>
        <translation>Der Desktop hat {key} als Sprechtaste von Parley abgelehnt: {why}.</translation>
    </message>
</context>
</TS>
