<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="es_ES">
<context>
    <name>AudioIO</name>
    <message>
        <source>The audio device stopped responding; reconnecting...</source>
        <translation>El dispositivo de audio dejó de responder; reconectando...</translation>
    </message>
    <message>
        <source>Audio error: {problem}</source>
        <translation>Error de audio: {problem}</translation>
    </message>
    <message>
        <source>Opening audio devices...</source>
        <translation>Abriendo los dispositivos de audio...</translation>
    </message>
    <message>
        <source>No audio device: {problem}</source>
        <translation>Ningún dispositivo de audio: {problem}</translation>
    </message>
    <message>
        <source>Audio device reconnected.</source>
        <translation>Dispositivo de audio reconectado.</translation>
    </message>
    <message>
        <source>the microphone {name} is not available</source>
        <translation>el micrófono {name} no está disponible</translation>
    </message>
    <message>
        <source>the speaker {name} is not available</source>
        <translation>el altavoz {name} no está disponible</translation>
    </message>
    <message>
        <source>there is no default microphone</source>
        <translation>no hay micrófono predeterminado</translation>
    </message>
    <message>
        <source>there is no default speaker</source>
        <translation>no hay altavoz predeterminado</translation>
    </message>
</context>
<context>
    <name>AudioMenu</name>
    <message>
        <source>&amp;Echo cancellation</source>
        <translation>Cancelación de &amp;eco</translation>
    </message>
    <message>
        <source>&amp;Noise suppression</source>
        <translation>Supresión de &amp;ruido</translation>
    </message>
    <message>
        <source>&amp;High-pass filter</source>
        <translation>&amp;Filtro paso alto</translation>
    </message>
    <message>
        <source>Automatic &amp;gain control</source>
        <translation>Control automático de &amp;ganancia</translation>
    </message>
    <message>
        <source>Removes the assistant&apos;s voice from the microphone, so it can be used on speakers.</source>
        <translation>Quita la voz del asistente del micrófono, para poder usar altavoces.</translation>
    </message>
    <message>
        <source>Reduces steady background noise (fans, hum).</source>
        <translation>Reduce el ruido de fondo constante (ventiladores, zumbidos).</translation>
    </message>
    <message>
        <source>Removes rumble below the voice.</source>
        <translation>Quita el retumbo por debajo de la voz.</translation>
    </message>
    <message>
        <source>Evens out the microphone level (can raise what is left of the echo).</source>
        <translation>Iguala el nivel del micrófono (puede subir lo que queda del eco).</translation>
    </message>
    <message>
        <source>Microphone processing</source>
        <translation>Procesado del micrófono</translation>
    </message>
</context>
<context>
    <name>Banner</name>
    <message>
        <source>Resume</source>
        <translation>Reanudar</translation>
    </message>
    <message>
        <source>Details...</source>
        <translation>Detalles...</translation>
    </message>
    <message>
        <source>The whole message, to read or to copy</source>
        <translation>El mensaje completo, para leerlo o copiarlo</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>Descartar</translation>
    </message>
    <message>
        <source>Hide this message (Esc)</source>
        <translation>Ocultar este mensaje (Esc)</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Detalles</translation>
    </message>
    <message>
        <source>Copy details</source>
        <translation>Copiar detalles</translation>
    </message>
</context>
<context>
    <name>CaptionsModel</name>
    <message>
        <source>No caption model is on this machine: download {models} in the Model manager to see your words in your turns.</source>
        <translation>No hay ningún modelo de subtítulos en este equipo: descargue {models} en el gestor de modelos para ver sus palabras en sus turnos.</translation>
    </message>
    <message>
        <source>Loading the caption model {model}...</source>
        <translation>Cargando el modelo de subtítulos {model}...</translation>
    </message>
    <message>
        <source>Captions of what you say: on ({model}).</source>
        <translation>Subtítulos de lo que dice: activados ({model}).</translation>
    </message>
</context>
<context>
    <name>ChatDialog</name>
    <message>
        <source>Your language model</source>
        <translation>Su modelo de lenguaje</translation>
    </message>
    <message>
        <source>Talk with a language model you run (Ollama, LM Studio, llama-server, vLLM): your speech is written by a speech to text, the model answers, and a Pocket TTS voice speaks its answer. Hold Talk while you speak.</source>
        <translation>Hable con un modelo de lenguaje que usted ejecuta (Ollama, LM Studio, llama-server, vLLM): un reconocedor de voz escribe lo que dice, el modelo responde y una voz Pocket TTS dice su respuesta. Mantenga Hablar pulsado mientras habla.</translation>
    </message>
    <message>
        <source>Server &amp;address</source>
        <translation>&amp;Dirección del servidor</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>&amp;Modelo</translation>
    </message>
    <message>
        <source>Only where the server asks for one</source>
        <translation>Solo si el servidor la pide</translation>
    </message>
    <message>
        <source>&amp;Key</source>
        <translation>&amp;Clave</translation>
    </message>
    <message>
        <source>Speech to te&amp;xt</source>
        <translation>Reconocimiento de &amp;voz</translation>
    </message>
    <message>
        <source>A key is kept in your system&apos;s keyring, never in a file.</source>
        <translation>Una clave se guarda en el llavero de su sistema, nunca en un archivo.</translation>
    </message>
    <message>
        <source>Let it read the c&amp;lock (today&apos;s date and the time here)</source>
        <translation>Dejarle leer el &amp;reloj (la fecha y la hora de aquí)</translation>
    </message>
    <message>
        <source>Let it &amp;search your saved conversations</source>
        <translation>Dejarle buscar en sus conversaciones &amp;guardadas</translation>
    </message>
    <message>
        <source>&amp;Find running servers</source>
        <translation>&amp;Buscar servidores en marcha</translation>
    </message>
    <message>
        <source>&amp;Talk with it</source>
        <translation>&amp;Hablar con él</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Cerrar</translation>
    </message>
    <message>
        <source>Looking for Ollama and LM Studio on this computer...</source>
        <translation>Buscando Ollama y LM Studio en este ordenador...</translation>
    </message>
</context>
<context>
    <name>ChatLatency</name>
    <message>
        <source>{total} s (your last words {stt_flush} s, the language model {model_first_token} s, its first clause {clause_wait} s, the voice {voice_first_frame} s)</source>
        <translation>{total} s (sus últimas palabras {stt_flush} s, el modelo de lenguaje {model_first_token} s, su primera cláusula {clause_wait} s, la voz {voice_first_frame} s)</translation>
    </message>
    <message>
        <source>{split}: the median of the answers so far; 95th percentile {percentile} s</source>
        <translation>{split}: la mediana de las respuestas hasta ahora; percentil 95 {percentile} s</translation>
    </message>
</context>
<context>
    <name>ChatMode</name>
    <message>
        <source>Your language model: {model} at {url}</source>
        <translation>Su modelo de lenguaje: {model} en {url}</translation>
    </message>
    <message>
        <source>Give your language model server&apos;s address and the model&apos;s name.</source>
        <translation>Indique la dirección del servidor de su modelo de lenguaje y el nombre del modelo.</translation>
    </message>
    <message>
        <source>A conversation with your language model needs a Pocket TTS voice: download one in the model manager (Model menu, Model manager).</source>
        <translation>Una conversación con su modelo de lenguaje necesita una voz Pocket TTS: descargue una en el gestor de modelos (menú Modelo, Gestor de modelos).</translation>
    </message>
    <message>
        <source>{file} was spoken with the voice {voice} of {voice_model}, which is not on this machine: download it in the model manager (Model menu, Model manager), then open the conversation again.</source>
        <translation>{file} se habló con la voz {voice} de {voice_model}, que no está en este equipo: descárguela en el gestor de modelos (menú Modelo, Gestor de modelos) y vuelva a abrir la conversación.</translation>
    </message>
    <message>
        <source>Loading the speech models and asking {url} for {model}...</source>
        <translation>Cargando los modelos de voz y pidiendo {model} a {url}...</translation>
    </message>
    <message>
        <source>Talking with {model} at {server}: hold Talk while you speak.</source>
        <translation>Conversación con {model} en {server}: mantenga Hablar pulsado mientras habla.</translation>
    </message>
    <message>
        <source>Listening: your turn ends when you pause, or when you release Talk.</source>
        <translation>Escuchando: su turno termina cuando hace una pausa o cuando suelta Hablar.</translation>
    </message>
    <message>
        <source>Listening: release Talk when you are done.</source>
        <translation>Escuchando: suelte Hablar cuando termine.</translation>
    </message>
    <message>
        <source>Hold Talk while you speak.</source>
        <translation>Mantenga Hablar pulsado mientras habla.</translation>
    </message>
    <message>
        <source>Nothing was heard: hold Talk while you speak.</source>
        <translation>No se oyó nada: mantenga Hablar pulsado mientras habla.</translation>
    </message>
    <message>
        <source>{model} answers...</source>
        <translation>{model} responde...</translation>
    </message>
    <message>
        <source>Exported audio: {path}</source>
        <translation>Audio exportado: {path}</translation>
    </message>
    <message>
        <source>You spoke over the answer: it stopped, and keeps the words you heard.</source>
        <translation>Habló durante la respuesta: se detuvo y conserva las palabras que oyó.</translation>
    </message>
    <message>
        <source>Saved: {path}</source>
        <translation>Guardado: {path}</translation>
    </message>
    <message>
        <source>[It read the clock: {result}]</source>
        <translation>[Leyó el reloj: {result}]</translation>
    </message>
    <message>
        <source>[It searched your conversations: {result}]</source>
        <translation>[Buscó en sus conversaciones: {result}]</translation>
    </message>
    <message>
        <source>[It asked for a tool Parley does not have ({name}): {result}]</source>
        <translation>[Pidió una herramienta que Parley no tiene ({name}): {result}]</translation>
    </message>
    <message>
        <source>Hold Talk to answer.</source>
        <translation>Mantenga Hablar pulsado para responder.</translation>
    </message>
    <message>
        <source>Hold Talk to answer. The voice began {latency} after you let go of Talk.</source>
        <translation>Mantenga Hablar pulsado para responder. La voz empezó {latency} después de soltar Hablar.</translation>
    </message>
</context>
<context>
    <name>ChatServers</name>
    <message>
        <source> or </source>
        <translation> o </translation>
    </message>
    <message>
        <source>No language model server is running here: start {where}, for example with `ollama serve` and `ollama pull llama3.2`, or give the address of your llama-server or vLLM.</source>
        <translation>Aquí no funciona ningún servidor de modelos de lenguaje: inicie {where}, por ejemplo con `ollama serve` y `ollama pull llama3.2`, o indique la dirección de su llama-server o vLLM.</translation>
    </message>
    <message>
        <source>{name} runs at {url} but offers no model: pull or load one (for example `ollama pull llama3.2`).</source>
        <translation>{name} funciona en {url} pero no ofrece ningún modelo: descargue o cargue uno (por ejemplo `ollama pull llama3.2`).</translation>
    </message>
    <message>
        <source>{name} runs at {url}: choose one of its models.</source>
        <translation>{name} funciona en {url}: elija uno de sus modelos.</translation>
    </message>
</context>
<context>
    <name>ChatStrip</name>
    <message>
        <source>Stop talking with your language model</source>
        <translation>Dejar de hablar con su modelo de lenguaje</translation>
    </message>
</context>
<context>
    <name>ConversationFiles</name>
    <message>
        <source>Untitled conversation</source>
        <translation>Conversación sin título</translation>
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
        <translation>Se canceló la apertura de {file}; la conversación actual continúa.</translation>
    </message>
    <message>
        <source>Could not export the transcript: {problem}</source>
        <translation>No se pudo exportar la transcripción: {problem}</translation>
    </message>
    <message>
        <source>Exported transcript: {path}</source>
        <translation>Transcripción exportada: {path}</translation>
    </message>
    <message>
        <source>Saved: {path}</source>
        <translation>Guardado: {path}</translation>
    </message>
    <message>
        <source>Exported audio: {path}</source>
        <translation>Audio exportado: {path}</translation>
    </message>
</context>
<context>
    <name>ConversationModel</name>
    <message>
        <source>Loading the model; Talk works once it is ready.</source>
        <translation>Cargando el modelo; Hablar funcionará en cuanto esté listo.</translation>
    </message>
    <message>
        <source>No model is loaded (Model → Model manager...).</source>
        <translation>No hay ningún modelo cargado (Modelo → Gestor de modelos...).</translation>
    </message>
    <message>
        <source>No microphone: {problem}</source>
        <translation>Sin micrófono: {problem}</translation>
    </message>
    <message>
        <source>The assistant waits for you to speak first.</source>
        <translation>El asistente espera a que hables primero.</translation>
    </message>
    <message>
        <source>The conversation is kept; press Resume to continue.</source>
        <translation>La conversación se conserva; pulsa Reanudar para continuar.</translation>
    </message>
    <message>
        <source>The assistant may speak first.</source>
        <translation>El asistente puede hablar primero.</translation>
    </message>
</context>
<context>
    <name>ConversationPanel</name>
    <message>
        <source>Hold Space (or the Talk button) and speak, or press Start to let the assistant begin. The conversation appears here.</source>
        <translation>Mantén pulsada la barra espaciadora (o el botón Hablar) y habla, o pulsa Empezar para que el asistente comience. La conversación aparece aquí.</translation>
    </message>
    <message>
        <source>Hold to talk  (Space)</source>
        <translation>Mantén para hablar  (Espacio)</translation>
    </message>
    <message>
        <source>Hold this button, or Space, while you speak.</source>
        <translation>Mantén pulsado este botón, o Espacio, mientras hablas.</translation>
    </message>
    <message>
        <source>Open mic (hands-free)</source>
        <translation>Micrófono abierto (manos libres)</translation>
    </message>
    <message>
        <source>The model hears the microphone all the time. Echo cancellation (Audio menu) keeps it from hearing itself on speakers.</source>
        <translation>El modelo oye el micrófono todo el tiempo. La cancelación de eco (menú Audio) evita que se oiga a sí mismo por los altavoces.</translation>
    </message>
    <message>
        <source>End</source>
        <translation>Terminar</translation>
    </message>
    <message>
        <source>End this conversation (you are asked to save what you said); a new one waits for Talk or Start.</source>
        <translation>Terminar esta conversación (se te pregunta si guardar lo que dijiste); una nueva espera a Hablar o Empezar.</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pausa</translation>
    </message>
    <message>
        <source>Stop the conversation: the model uses no processor time until you continue.</source>
        <translation>Detener la conversación: el modelo no usa tiempo de procesador hasta que continúes.</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>Continuar</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>Empezar</translation>
    </message>
    <message>
        <source>Run the conversation: the assistant listens and may speak. Talk starts it too.</source>
        <translation>Iniciar la conversación: el asistente escucha y puede hablar. Hablar también la inicia.</translation>
    </message>
    <message>
        <source>Hold it (or Space) while you speak.</source>
        <translation>Mantenlo pulsado (o Espacio) mientras hablas.</translation>
    </message>
    <message>
        <source>The assistant waits for you: hold Space (or the Talk button) and speak.</source>
        <translation>El asistente te espera: mantén pulsada la barra espaciadora (o el botón Hablar) y habla.</translation>
    </message>
    <message>
        <source>The conversation runs: hold Space (or the Talk button) and speak. It appears here.</source>
        <translation>La conversación está en marcha: mantén pulsada la barra espaciadora (o el botón Hablar) y habla. Aparece aquí.</translation>
    </message>
</context>
<context>
    <name>ConversationView</name>
    <message>
        <source>overlaps</source>
        <translation>se solapa</translation>
    </message>
    <message>
        <source>(speech without words)</source>
        <translation>(habla sin palabras)</translation>
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
        <translation>macOS todavía no da a Parley ninguna tecla global.</translation>
    </message>
    <message>
        <source>No X11 display or Wayland session was found, so no desktop-wide key can be set.</source>
        <translation>No se encontró ninguna pantalla X11 ni sesión Wayland, así que no se puede definir una tecla global.</translation>
    </message>
    <message>
        <source>{key} cannot be a desktop-wide key: choose a letter, a digit, Space, a function key or Pause, with Ctrl, Alt or the Super key.</source>
        <translation>{key} no puede ser una tecla global: elige una letra, una cifra, Espacio, una tecla de función o Pausa, con Ctrl, Alt o la tecla Súper.</translation>
    </message>
    <message>
        <source>{key} with only Shift would be taken from every other program&apos;s typing: add Ctrl, Alt or the Super key.</source>
        <translation>{key} solo con Mayús se quitaría a la escritura de todos los demás programas: añade Ctrl, Alt o la tecla Súper.</translation>
    </message>
    <message>
        <source>{key} alone would be taken from every other program&apos;s typing: add Ctrl, Alt or the Super key.</source>
        <translation>{key} sola se quitaría a la escritura de todos los demás programas: añade Ctrl, Alt o la tecla Súper.</translation>
    </message>
</context>
<context>
    <name>DesktopTalkKey</name>
    <message>
        <source>{problem} Space in Parley&apos;s window still works.</source>
        <translation>{problem} Espacio sigue funcionando en la ventana de Parley.</translation>
    </message>
</context>
<context>
    <name>DeviceReport</name>
    <message>
        <source>this build of torch ({version}) has no CUDA support</source>
        <translation>esta compilación de torch ({version}) no admite CUDA</translation>
    </message>
    <message>
        <source>no NVIDIA driver found ({library})</source>
        <translation>no se encontró ningún controlador NVIDIA ({library})</translation>
    </message>
    <message>
        <source>CUDA does not initialise: {problem}</source>
        <translation>CUDA no se inicializa: {problem}</translation>
    </message>
    <message>
        <source>the NVIDIA driver is there but CUDA does not start: {problem}</source>
        <translation>el controlador NVIDIA está presente, pero CUDA no arranca: {problem}</translation>
    </message>
    <message>
        <source>no CUDA device (the NVIDIA driver found no GPU)</source>
        <translation>ningún dispositivo CUDA (el controlador NVIDIA no encontró ninguna GPU)</translation>
    </message>
</context>
<context>
    <name>DevicesModel</name>
    <message>
        <source>the audio devices stopped responding</source>
        <translation>los dispositivos de audio dejaron de responder</translation>
    </message>
    <message>
        <source>the audio devices failed</source>
        <translation>los dispositivos de audio fallaron</translation>
    </message>
    <message numerus="yes">
        <source>%n frames dropped · {xruns} xruns · {gaps} s output gaps</source>
        <translation>
            <numerusform>%n trama perdida · {xruns} xruns · {gaps} s de huecos de salida</numerusform>
            <numerusform>%n tramas perdidas · {xruns} xruns · {gaps} s de huecos de salida</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>DevicesPanel</name>
    <message>
        <source>System default</source>
        <translation>Predeterminado del sistema</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>detenido</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>iniciando</translation>
    </message>
    <message>
        <source>lost</source>
        <translation>perdido</translation>
    </message>
    <message>
        <source>error</source>
        <translation>error</translation>
    </message>
    <message>
        <source>Audio: {input} ({input_rate} Hz) → {output} ({output_rate} Hz)</source>
        <translation>Audio: {input} ({input_rate} Hz) → {output} ({output_rate} Hz)</translation>
    </message>
    <message>
        <source>Audio: {input} → {output} (opened while a conversation runs)</source>
        <translation>Audio: {input} → {output} (se abre mientras dura una conversación)</translation>
    </message>
    <message>
        <source>Audio: {state}</source>
        <translation>Audio: {state}</translation>
    </message>
    <message>
        <source>Refresh devices</source>
        <translation>Actualizar dispositivos</translation>
    </message>
    <message>
        <source>Look again for microphones and speakers (F5)</source>
        <translation>Buscar de nuevo micrófonos y altavoces (F5)</translation>
    </message>
    <message>
        <source>Microphone</source>
        <translation>Micrófono</translation>
    </message>
    <message>
        <source>Speaker</source>
        <translation>Altavoz</translation>
    </message>
    <message>
        <source>Audio: not started</source>
        <translation>Audio: sin iniciar</translation>
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
        <translation>Cancelación de eco: desactivada</translation>
    </message>
    <message>
        <source>Echo suppression: waiting for the assistant to speak</source>
        <translation>Supresión de eco: esperando a que hable el asistente</translation>
    </message>
    <message>
        <source>Echo suppression (ERLE, est.): {db} dB</source>
        <translation>Supresión de eco (ERLE, est.): {db} dB</translation>
    </message>
    <message>
        <source> · echo {ms} ms behind the speaker</source>
        <translation> · eco {ms} ms detrás del altavoz</translation>
    </message>
    <message>
        <source>Mic, raw</source>
        <translation>Micrófono, en bruto</translation>
    </message>
    <message>
        <source>Mic, processed</source>
        <translation>Micrófono, procesado</translation>
    </message>
    <message>
        <source>echo suppression</source>
        <translation>supresión de eco</translation>
    </message>
</context>
<context>
    <name>EngineTexts</name>
    <message>
        <source>(untrained, babbles)</source>
        <translation>(sin entrenar, balbucea)</translation>
    </message>
    <message>
        <source>General assistant</source>
        <translation>Asistente general</translation>
    </message>
    <message>
        <source>Language partner</source>
        <translation>Compañero de idiomas</translation>
    </message>
    <message>
        <source>Casual chat</source>
        <translation>Charla informal</translation>
    </message>
</context>
<context>
    <name>FileKindMenu</name>
    <message>
        <source>&amp;Automatic</source>
        <translation>&amp;Automático</translation>
    </message>
    <message>
        <source>Compact for the 7B models, a full snapshot for small ones.</source>
        <translation>Compacto para los modelos 7B, una instantánea completa para los pequeños.</translation>
    </message>
    <message>
        <source>&amp;Compact</source>
        <translation>&amp;Compacto</translation>
    </message>
    <message>
        <source>About 2 MB a minute for any model; rebuilt (with a progress bar) when opened.</source>
        <translation>Unos 2 MB por minuto con cualquier modelo; se reconstruye (con una barra de progreso) al abrirlo.</translation>
    </message>
    <message>
        <source>&amp;Full snapshot</source>
        <translation>&amp;Instantánea completa</translation>
    </message>
    <message>
        <source>Opens instantly; a 7B conversation can take gigabytes.</source>
        <translation>Se abre al instante; una conversación 7B puede ocupar gigabytes.</translation>
    </message>
    <message>
        <source>Conversation fi&amp;les</source>
        <translation>Archivos de con&amp;versación</translation>
    </message>
</context>
<context>
    <name>HealthModel</name>
    <message>
        <source>Model → Model manager</source>
        <translation>Modelo → Gestor de modelos</translation>
    </message>
    <message>
        <source>Whether this computer computes each 80 ms of the assistant&apos;s speech in less than 80 ms. When it does not, replies come late and break up.</source>
        <translation>Si este ordenador calcula cada 80 ms de la voz del asistente en menos de 80 ms. Si no, las respuestas llegan tarde y entrecortadas.</translation>
    </message>
    <message>
        <source>How long it takes from your mouth to the model and its answer to the speaker (estimated).</source>
        <translation>Cuánto tarda desde tu boca hasta el modelo y desde su respuesta hasta el altavoz (estimado).</translation>
    </message>
    <message>
        <source>How much more of the conversation the model can remember. When it is full, it forgets the oldest part and goes on.</source>
        <translation>Cuánto más de la conversación puede recordar el modelo. Cuando está lleno, olvida la parte más antigua y sigue.</translation>
    </message>
    <message>
        <source>Too slow for real time: replies come late and break up. To help, choose {precision} ({manager}), run it on the GPU ({manager}) or close other programs.</source>
        <translation>Demasiado lento para tiempo real: las respuestas llegan tarde y entrecortadas. Para ayudar, elige {precision} ({manager}), ejecútalo en la GPU ({manager}) o cierra otros programas.</translation>
    </message>
    <message>
        <source>Too slow for real time: replies come late and break up. To help, choose {precision} ({manager}) or close other programs.</source>
        <translation>Demasiado lento para tiempo real: las respuestas llegan tarde y entrecortadas. Para ayudar, elige {precision} ({manager}) o cierra otros programas.</translation>
    </message>
    <message>
        <source>Too slow for real time: replies come late and break up. To help, run it on the GPU ({manager}) or close other programs.</source>
        <translation>Demasiado lento para tiempo real: las respuestas llegan tarde y entrecortadas. Para ayudar, ejecútalo en la GPU ({manager}) o cierra otros programas.</translation>
    </message>
    <message>
        <source>Too slow for real time: replies come late and break up. To help, close other programs.</source>
        <translation>Demasiado lento para tiempo real: las respuestas llegan tarde y entrecortadas. Para ayudar, cierra otros programas.</translation>
    </message>
    <message>
        <source>{first} or {second}</source>
        <translation>{first} o {second}</translation>
    </message>
    <message>
        <source>full, remembers the last {duration}</source>
        <translation>lleno, recuerda los últimos {duration}</translation>
    </message>
    <message>
        <source>{duration} left</source>
        <translation>quedan {duration}</translation>
    </message>
    <message>
        <source>falling behind</source>
        <translation>se queda atrás</translation>
    </message>
    <message>
        <source>keeping up</source>
        <translation>va al día</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} s</translation>
    </message>
    <message>
        <source>This computer takes {ms} ms to compute each {frame} ms of sound with the demo model.</source>
        <translation>Este ordenador tarda {ms} ms en calcular cada {frame} ms de sonido con el modelo de demostración.</translation>
    </message>
    <message>
        <source>This computer takes {ms} ms to compute each {frame} ms of sound with {model}.</source>
        <translation>Este ordenador tarda {ms} ms en calcular cada {frame} ms de sonido con {model}.</translation>
    </message>
</context>
<context>
    <name>HistoryPlot</name>
    <message>
        <source>latency history</source>
        <translation>historial de latencia</translation>
    </message>
</context>
<context>
    <name>Interpreter</name>
    <message>
        <source>The interpreter listens to the microphone while it runs.</source>
        <translation>El intérprete escucha el micrófono mientras está en marcha.</translation>
    </message>
    <message>
        <source>Listening to what this computer plays is not available here: {reason}.</source>
        <translation>Escuchar lo que reproduce este ordenador no está disponible aquí: {reason}.</translation>
    </message>
    <message>
        <source>To follow a call or a video, choose &quot;What … plays&quot; as the input.</source>
        <translation>Para seguir una llamada o un vídeo, elija «Lo que reproduce …» como entrada.</translation>
    </message>
    <message>
        <source>Echo cancellation keeps it from hearing its own voice.</source>
        <translation>La cancelación de eco evita que oiga su propia voz.</translation>
    </message>
    <message>
        <source>Echo cancellation is off or unavailable: use headphones, or it will hear its own voice.</source>
        <translation>La cancelación de eco está desactivada o no disponible: use auriculares o oirá su propia voz.</translation>
    </message>
    <message>
        <source>The interpreter listens to what {device} plays and speaks on another output: its own voice does not come back in.</source>
        <translation>El intérprete escucha lo que reproduce {device} y habla por otra salida: su propia voz no vuelve a entrar.</translation>
    </message>
    <message>
        <source>The interpreter listens to what {device} plays and speaks there too, so its own voice would come back in, and echo cancellation is unavailable ({problem}): choose another speaker, such as headphones.</source>
        <translation>El intérprete escucha lo que reproduce {device} y también habla ahí, así que su propia voz volvería a entrar, y la cancelación de eco no está disponible ({problem}): elija otro altavoz, como unos auriculares.</translation>
    </message>
    <message>
        <source>The interpreter listens to what {device} plays and speaks there too: echo cancellation against its own voice is always on here, so it does not hear itself.</source>
        <translation>El intérprete escucha lo que reproduce {device} y también habla ahí: la cancelación de eco de su propia voz siempre está activa en este caso, así que no se oye a sí mismo.</translation>
    </message>
    <message>
        <source>Listen to</source>
        <translation>Escuchar</translation>
    </message>
    <message>
        <source>Interpreter mode: it speaks and writes in English what it hears · personas do not apply</source>
        <translation>Modo intérprete: dice y escribe en inglés lo que oye · las personas no se aplican</translation>
    </message>
    <message>
        <source>The interpreter listens all the time while it runs: Start and Pause control it.</source>
        <translation>El intérprete escucha todo el tiempo mientras está en marcha: Empezar y Pausa lo controlan.</translation>
    </message>
    <message>
        <source>Press Start: the interpreter listens and speaks the English translation. Its English text appears here.</source>
        <translation>Pulse Empezar: el intérprete escucha y dice la traducción al inglés. Su texto en inglés aparece aquí.</translation>
    </message>
</context>
<context>
    <name>LanguageMenu</name>
    <message>
        <source>Lan&amp;guage</source>
        <translation>&amp;Idioma</translation>
    </message>
    <message>
        <source>Applies the next time Parley starts.</source>
        <translation>Se aplica la próxima vez que se inicie Parley.</translation>
    </message>
    <message>
        <source>System ({language})</source>
        <translation>Sistema ({language})</translation>
    </message>
</context>
<context>
    <name>LevelMeter</name>
    <message>
        <source>{meter} level</source>
        <translation>nivel de {meter}</translation>
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
        <translation>{meter}  en silencio</translation>
    </message>
</context>
<context>
    <name>Library</name>
    <message>
        <source>{file} cannot be read: {problem}</source>
        <translation>No se puede leer {file}: {problem}</translation>
    </message>
    <message>
        <source>{file} is a folder, not a conversation.</source>
        <translation>{file} es una carpeta, no una conversación.</translation>
    </message>
    <message>
        <source>{file} is not a regular file (a pipe or a device); it was not opened.</source>
        <translation>{file} no es un archivo normal (una tubería o un dispositivo); no se abrió.</translation>
    </message>
    <message>
        <source>{file} is damaged ({problem}).</source>
        <translation>{file} está dañado ({problem}).</translation>
    </message>
</context>
<context>
    <name>LibraryModel</name>
    <message>
        <source>{title} (open now)</source>
        <translation>{title} (abierta)</translation>
    </message>
    <message>
        <source>{name} cannot be a file name.</source>
        <translation>{name} no puede ser un nombre de archivo.</translation>
    </message>
    <message>
        <source>That name is too long (at most {count} bytes).</source>
        <translation>Ese nombre es demasiado largo (como mucho {count} bytes).</translation>
    </message>
    <message>
        <source>There is already a conversation called {name}.</source>
        <translation>Ya hay una conversación llamada {name}.</translation>
    </message>
    <message>
        <source>Could not rename {file}: {problem}</source>
        <translation>No se pudo cambiar el nombre de {file}: {problem}</translation>
    </message>
    <message>
        <source>Could not move {file} to the trash.</source>
        <translation>No se pudo mover {file} a la papelera.</translation>
    </message>
</context>
<context>
    <name>LibraryPanel</name>
    <message>
        <source>Unreadable: {problem}</source>
        <translation>Ilegible: {problem}</translation>
    </message>
    <message>
        <source>unknown date</source>
        <translation>fecha desconocida</translation>
    </message>
    <message>
        <source>Open now · {details}</source>
        <translation>Abierta · {details}</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>Conversaciones</translation>
    </message>
    <message>
        <source>Search titles and transcripts</source>
        <translation>Buscar en títulos y transcripciones</translation>
    </message>
    <message>
        <source>Search titles and transcripts (Ctrl+F)</source>
        <translation>Buscar en títulos y transcripciones (Ctrl+F)</translation>
    </message>
    <message>
        <source>Search conversations</source>
        <translation>Buscar conversaciones</translation>
    </message>
    <message>
        <source>saved conversations</source>
        <translation>conversaciones guardadas</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Abrir</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>Reproducir</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>Renombrar</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Eliminar</translation>
    </message>
    <message>
        <source>Open the conversation selected in the library</source>
        <translation>Abrir la conversación seleccionada en la biblioteca</translation>
    </message>
    <message>
        <source>Play the conversation selected in the library</source>
        <translation>Reproducir la conversación seleccionada en la biblioteca</translation>
    </message>
    <message>
        <source>Rename the conversation selected in the library</source>
        <translation>Renombrar la conversación seleccionada en la biblioteca</translation>
    </message>
    <message>
        <source>Delete the conversation selected in the library</source>
        <translation>Eliminar la conversación seleccionada en la biblioteca</translation>
    </message>
    <message>
        <source>Reading the conversations folder...</source>
        <translation>Leyendo la carpeta de conversaciones...</translation>
    </message>
    <message>
        <source>No saved conversations yet. File → Save keeps one here.</source>
        <translation>Aún no hay conversaciones guardadas. Archivo → Guardar guarda una aquí.</translation>
    </message>
    <message>
        <source>Searching the transcripts for “{query}”...</source>
        <translation>Buscando «{query}» en las transcripciones...</translation>
    </message>
    <message>
        <source>No conversation matches “{query}”.</source>
        <translation>Ninguna conversación coincide con «{query}».</translation>
    </message>
    <message>
        <source>Rename conversation</source>
        <translation>Renombrar conversación</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>Nombre:</translation>
    </message>
    <message>
        <source>{file} is no longer in the conversations folder.</source>
        <translation>{file} ya no está en la carpeta de conversaciones.</translation>
    </message>
    <message>
        <source>Delete conversation</source>
        <translation>Eliminar conversación</translation>
    </message>
    <message>
        <source>Move “{title}” to the trash?</source>
        <translation>¿Mover «{title}» a la papelera?</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Parley conversation (*.parley);;All files (*)</source>
        <translation>Conversación de Parley (*.parley);;Todos los archivos (*)</translation>
    </message>
    <message>
        <source>Personas...</source>
        <translation>Personas...</translation>
    </message>
    <message>
        <source>Choose who the assistant is (a new conversation), or edit the personas.</source>
        <translation>Elegir quién es el asistente (una conversación nueva), o editar las personas.</translation>
    </message>
    <message>
        <source>Meters and devices</source>
        <translation>Medidores y dispositivos</translation>
    </message>
    <message>
        <source>Crash protection stopped: {problem}. Parley keeps trying and resumes it once the disk has room; save the conversation to keep it.</source>
        <translation>Protección ante fallos detenida: {problem}. Parley sigue intentándolo y la reanuda en cuanto el disco tenga espacio; guarda la conversación para conservarla.</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>No hay ningún modelo cargado</translation>
    </message>
    <message>
        <source>Load the previous model ({name}) again?</source>
        <translation>¿Cargar de nuevo el modelo anterior ({name})?</translation>
    </message>
    <message>
        <source>Version {version}</source>
        <translation>Versión {version}</translation>
    </message>
    <message>
        <source>Opening the conversation (rebuilding it from its file)...</source>
        <translation>Abriendo la conversación (reconstruyéndola a partir de su archivo)...</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancelar</translation>
    </message>
    <message>
        <source>The language changes the next time Parley starts.</source>
        <translation>El idioma cambiará la próxima vez que se inicie Parley.</translation>
    </message>
    <message>
        <source>Open conversation</source>
        <translation>Abrir conversación</translation>
    </message>
    <message>
        <source>“{title}” was saved with another copy of the model {model}, whose weights differ from the loaded one&apos;s (built or downloaded elsewhere), so Parley cannot continue it here.</source>
        <translation>«{title}» se guardó con otra copia del modelo {model}, cuyos pesos difieren de los del modelo cargado (creada o descargada en otro lugar), así que Parley no puede continuarla aquí.</translation>
    </message>
    <message>
        <source>“{title}” was saved with the model {model}, which is not on this machine (the loaded model is {loaded}). Parley does not fetch or load a model a file names: load that model yourself, then open the conversation again.</source>
        <translation>«{title}» se guardó con el modelo {model}, que no está en este equipo (el modelo cargado es {loaded}). Parley no descarga ni carga un modelo porque lo nombre un archivo: carga ese modelo tú mismo y vuelve a abrir la conversación.</translation>
    </message>
    <message>
        <source>Another model</source>
        <translation>Otro modelo</translation>
    </message>
    <message>
        <source>“{title}” was saved with the model {model}; the loaded model is {loaded}. Switch to {other} and open it?</source>
        <translation>«{title}» se guardó con el modelo {model}; el modelo cargado es {loaded}. ¿Cambiar a {other} y abrirla?</translation>
    </message>
    <message>
        <source>{path} no longer exists.</source>
        <translation>{path} ya no existe.</translation>
    </message>
    <message>
        <source>Save conversation</source>
        <translation>Guardar conversación</translation>
    </message>
    <message>
        <source>A conversation needs a name: type one, or keep the one proposed.</source>
        <translation>Una conversación necesita un nombre: escribe uno o conserva el propuesto.</translation>
    </message>
    <message>
        <source>Export transcript</source>
        <translation>Exportar transcripción</translation>
    </message>
    <message>
        <source>Export conversation audio</source>
        <translation>Exportar el audio de la conversación</translation>
    </message>
    <message>
        <source>WAV audio, left: you, right: assistant (*.wav)</source>
        <translation>Audio WAV, izquierda: tú, derecha: asistente (*.wav)</translation>
    </message>
    <message>
        <source>Unsaved conversation</source>
        <translation>Conversación sin guardar</translation>
    </message>
    <message>
        <source>Save the current conversation before it is closed?</source>
        <translation>¿Guardar la conversación actual antes de cerrarla?</translation>
    </message>
    <message>
        <source>Log file: {path}</source>
        <translation>Archivo de registro: {path}</translation>
    </message>
    <message>
        <source>No log file: {problem}</source>
        <translation>Sin archivo de registro: {problem}</translation>
    </message>
    <message>
        <source>About Parley</source>
        <translation>Acerca de Parley</translation>
    </message>
    <message>
        <source>Parley: a local, real-time, full-duplex voice assistant for the Moshi family of speech models.</source>
        <translation>Parley: un asistente de voz local, en tiempo real y dúplex completo para la familia de modelos de voz Moshi.</translation>
    </message>
    <message>
        <source>Save conversation?</source>
        <translation>¿Guardar la conversación?</translation>
    </message>
    <message>
        <source>Save the current conversation before quitting?</source>
        <translation>¿Guardar la conversación actual antes de salir?</translation>
    </message>
</context>
<context>
    <name>MediaPause</name>
    <message>
        <source>Pausing other players uses MPRIS, which only Linux desktops have.</source>
        <translation>Pausar otros reproductores usa MPRIS, que solo tienen los escritorios Linux.</translation>
    </message>
</context>
<context>
    <name>Menus</name>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Archivo</translation>
    </message>
    <message>
        <source>&amp;New conversation</source>
        <translation>&amp;Nueva conversación</translation>
    </message>
    <message>
        <source>&amp;End conversation</source>
        <translation>&amp;Terminar la conversación</translation>
    </message>
    <message>
        <source>End this conversation (you are asked to save what you said); a new one waits for Talk or Start.</source>
        <translation>Terminar esta conversación (se te pregunta si guardar lo que dijiste); una nueva espera a Hablar o Empezar.</translation>
    </message>
    <message>
        <source>&amp;Open...</source>
        <translation>&amp;Abrir...</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>Abrir &amp;reciente</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>&amp;Guardar</translation>
    </message>
    <message>
        <source>Save &amp;as...</source>
        <translation>Guardar &amp;como...</translation>
    </message>
    <message>
        <source>Export &amp;transcript...</source>
        <translation>Exportar transcr&amp;ipción...</translation>
    </message>
    <message>
        <source>Export a&amp;udio...</source>
        <translation>Exportar a&amp;udio...</translation>
    </message>
    <message>
        <source>Open conversations &amp;folder</source>
        <translation>Abrir la car&amp;peta de conversaciones</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Salir</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>&amp;Modelo</translation>
    </message>
    <message>
        <source>&amp;Model manager...</source>
        <translation>&amp;Gestor de modelos...</translation>
    </message>
    <message>
        <source>Your &amp;language model...</source>
        <translation>Su modelo de &amp;lenguaje...</translation>
    </message>
    <message>
        <source>Talk with a language model you run (Ollama, LM Studio, llama-server, vLLM) through a speech to text and a voice.</source>
        <translation>Hablar con un modelo de lenguaje que usted ejecuta (Ollama, LM Studio, llama-server, vLLM) mediante un reconocedor de voz y una voz.</translation>
    </message>
    <message>
        <source>&amp;Personas...</source>
        <translation>&amp;Personas...</translation>
    </message>
    <message>
        <source>Choose who the assistant is (a new conversation), or edit the personas.</source>
        <translation>Elegir quién es el asistente (una conversación nueva), o editar las personas.</translation>
    </message>
    <message>
        <source>&amp;Voices (record, import)...</source>
        <translation>&amp;Voces (grabar, importar)...</translation>
    </message>
    <message>
        <source>&amp;Wait for me to speak (this conversation)</source>
        <translation>&amp;Esperar a que yo hable (esta conversación)</translation>
    </message>
    <message>
        <source>The assistant stays silent until you press Talk or speak, in this conversation. A persona that always waits: Personas..., &quot;Wait for me to speak first&quot;.</source>
        <translation>El asistente guarda silencio hasta que pulses Hablar o hables, en esta conversación. Una persona que siempre espera: Personas..., «Esperar a que yo hable primero».</translation>
    </message>
    <message>
        <source>&amp;Audio</source>
        <translation>Au&amp;dio</translation>
    </message>
    <message>
        <source>&amp;Refresh devices</source>
        <translation>&amp;Actualizar dispositivos</translation>
    </message>
    <message>
        <source>&amp;Talk key...</source>
        <translation>&amp;Tecla para hablar...</translation>
    </message>
    <message>
        <source>&amp;Pause other players while talking</source>
        <translation>&amp;Pausar otros reproductores al hablar</translation>
    </message>
    <message>
        <source>Music and videos pause while you hold Talk or the assistant speaks, and go on afterwards.</source>
        <translation>La música y los vídeos se pausan mientras mantienes Hablar o el asistente habla, y siguen después.</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ver</translation>
    </message>
    <message>
        <source>&amp;Library</source>
        <translation>&amp;Biblioteca</translation>
    </message>
    <message>
        <source>&amp;Meters and latency</source>
        <translation>&amp;Medidores y latencia</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>Ay&amp;uda</translation>
    </message>
    <message>
        <source>Open &amp;log folder</source>
        <translation>Abrir la carpeta del &amp;registro</translation>
    </message>
    <message>
        <source>&amp;About Parley</source>
        <translation>&amp;Acerca de Parley</translation>
    </message>
    <message>
        <source>&amp;Captions of what you say</source>
        <translation>&amp;Subtítulos de lo que dice</translation>
    </message>
    <message>
        <source>Your words appear in your turns as you speak (caption model: {model}), are saved with the conversation and found by the library&apos;s search.</source>
        <translation>Sus palabras aparecen en sus turnos mientras habla (modelo de subtítulos: {model}), se guardan con la conversación y la búsqueda de la biblioteca las encuentra.</translation>
    </message>
</context>
<context>
    <name>MetersPanel</name>
    <message>
        <source>Input queue</source>
        <translation>Cola de entrada</translation>
    </message>
    <message>
        <source>Sound from the microphone waiting for the model.</source>
        <translation>El sonido del micrófono que espera al modelo.</translation>
    </message>
    <message>
        <source>Encode</source>
        <translation>Codificar</translation>
    </message>
    <message>
        <source>Turning the microphone&apos;s sound into the model&apos;s tokens.</source>
        <translation>Convertir el sonido del micrófono en tokens del modelo.</translation>
    </message>
    <message>
        <source>LM</source>
        <translation>LM</translation>
    </message>
    <message>
        <source>The language model choosing what to say next.</source>
        <translation>El modelo de lenguaje eligiendo qué decir a continuación.</translation>
    </message>
    <message>
        <source>Depth</source>
        <translation>Profundidad</translation>
    </message>
    <message>
        <source>The model choosing the details of its next piece of sound.</source>
        <translation>El modelo eligiendo los detalles de su siguiente fragmento de sonido.</translation>
    </message>
    <message>
        <source>Decode</source>
        <translation>Decodificar</translation>
    </message>
    <message>
        <source>Turning the model&apos;s tokens into sound.</source>
        <translation>Convertir los tokens del modelo en sonido.</translation>
    </message>
    <message>
        <source>Output queue</source>
        <translation>Cola de salida</translation>
    </message>
    <message>
        <source>The assistant&apos;s sound waiting for the speaker.</source>
        <translation>El sonido del asistente que espera al altavoz.</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>Estado</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>Velocidad</translation>
    </message>
    <message>
        <source>Delay</source>
        <translation>Retardo</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Memoria</translation>
    </message>
    <message>
        <source>Levels</source>
        <translation>Niveles</translation>
    </message>
    <message>
        <source>Mic</source>
        <translation>Micro</translation>
    </message>
    <message>
        <source>How loud the microphone is.</source>
        <translation>Lo alto que suena el micrófono.</translation>
    </message>
    <message>
        <source>Model hears</source>
        <translation>El modelo oye</translation>
    </message>
    <message>
        <source>What the model hears: silent while you do not hold Talk (open mic off).</source>
        <translation>Lo que oye el modelo: silencio mientras no mantengas Hablar (micrófono abierto desactivado).</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>Asistente</translation>
    </message>
    <message>
        <source>How loud the assistant speaks.</source>
        <translation>Lo alto que habla el asistente.</translation>
    </message>
    <message>
        <source>Advanced</source>
        <translation>Avanzado</translation>
    </message>
    <message>
        <source>Show the figures for developers: time per stage, compute history, memory use, echo suppression, dropped sound.</source>
        <translation>Mostrar las cifras para desarrolladores: tiempo por etapa, historial de cálculo, memoria, supresión de eco, sonido perdido.</translation>
    </message>
    <message>
        <source>Microphone processing</source>
        <translation>Procesado del micrófono</translation>
    </message>
    <message>
        <source>The microphone before and after echo cancellation, and how much of the assistant&apos;s voice it removes (ERLE: more dB is better).</source>
        <translation>El micrófono antes y después de la cancelación de eco, y cuánta voz del asistente quita (ERLE: más dB es mejor).</translation>
    </message>
    <message>
        <source>Time per frame (ms)</source>
        <translation>Tiempo por trama (ms)</translation>
    </message>
    <message>
        <source>Mic to speaker (est.)</source>
        <translation>Del micro al altavoz (est.)</translation>
    </message>
    <message>
        <source>Real-time factor</source>
        <translation>Factor de tiempo real</translation>
    </message>
    <message>
        <source>Compute time over sound time: below 1 keeps up with real time.</source>
        <translation>Tiempo de cálculo entre tiempo de sonido: por debajo de 1 va al ritmo del tiempo real.</translation>
    </message>
    <message>
        <source>Engine thread</source>
        <translation>Hilo del motor</translation>
    </message>
    <message>
        <source>The engine thread&apos;s time around a frame: its CPU time in the model&apos;s step, the step&apos;s time waiting (for the Python lock, a core, torch&apos;s other threads), the crash journal and transcript, the microphone&apos;s processing, the reply&apos;s output.</source>
        <translation>El tiempo del hilo del motor en torno a una trama: su tiempo de CPU en el paso del modelo, el tiempo de espera del paso (por el cerrojo de Python, un núcleo, los otros hilos de torch), el diario de fallos y la transcripción, el procesado del micrófono, la salida de la respuesta.</translation>
    </message>
    <message>
        <source>GUI thread</source>
        <translation>Hilo de la interfaz</translation>
    </message>
    <message>
        <source>CPU time the window spent between two frames: it takes cores and the Python lock from the engine.</source>
        <translation>Tiempo de CPU que la ventana gastó entre dos tramas: le quita núcleos y el cerrojo de Python al motor.</translation>
    </message>
    <message>
        <source>{ms} ms budget</source>
        <translation>presupuesto de {ms} ms</translation>
    </message>
    <message>
        <source>Compute time of each frame: below the {ms} ms line the computer keeps up.</source>
        <translation>Tiempo de cálculo de cada trama: por debajo de la línea de {ms} ms el ordenador va al día.</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>Motor</translation>
    </message>
    <message>
        <source>0 frames dropped · 0 xruns</source>
        <translation>0 tramas perdidas · 0 xruns</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>Caché KV</translation>
    </message>
    <message>
        <source>The model&apos;s memory of the conversation: places used of its size, how often it filled up and started over (wraps), and its size in memory.</source>
        <translation>La memoria del modelo sobre la conversación: plazas usadas de su tamaño, cuántas veces se llenó y volvió a empezar (vueltas), y su tamaño en memoria.</translation>
    </message>
    <message>
        <source>Drops</source>
        <translation>Pérdidas</translation>
    </message>
    <message>
        <source>Frames dropped: input skipped because the model fell behind real time. Xruns: the sound card&apos;s buffers ran over or under. Output gaps: silence played while the model had no reply ready.</source>
        <translation>Tramas perdidas: entrada omitida porque el modelo se quedó por detrás del tiempo real. Xruns: los búferes de la tarjeta de sonido se desbordaron o se vaciaron. Huecos de salida: silencio reproducido mientras el modelo no tenía respuesta lista.</translation>
    </message>
    <message>
        <source>{ms} ms</source>
        <translation>{ms} ms</translation>
    </message>
    <message>
        <source>CPU {cpu} · waiting {waiting} · journal {journal} · input {input} · output {output}</source>
        <translation>CPU {cpu} · espera {waiting} · diario {journal} · entrada {input} · salida {output}</translation>
    </message>
    <message>
        <source>CPU {cpu}</source>
        <translation>CPU {cpu}</translation>
    </message>
    <message numerus="yes">
        <source>{name}: {used}/{capacity} · %n wrap(s) · {size} MiB</source>
        <translation>
            <numerusform>{name}: {used}/{capacity} · %n vuelta · {size} MiB</numerusform>
            <numerusform>{name}: {used}/{capacity} · %n vueltas · {size} MiB</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MicrophoneBanner</name>
    <message>
        <source>Choose microphone...</source>
        <translation>Elegir micrófono...</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>Reintentar</translation>
    </message>
    <message>
        <source>Look for audio devices again (one plugged in since Parley started).</source>
        <translation>Buscar de nuevo dispositivos de audio (uno conectado desde que se inició Parley).</translation>
    </message>
    <message>
        <source>No microphone: Parley cannot hear you, so Talk is off. {problem}</source>
        <translation>Sin micrófono: Parley no puede oírte, así que Hablar está desactivado. {problem}</translation>
    </message>
</context>
<context>
    <name>ModelManager</name>
    <message>
        <source>Model</source>
        <translation>Modelo</translation>
    </message>
    <message>
        <source>About</source>
        <translation>Descripción</translation>
    </message>
    <message>
        <source>Here</source>
        <translation>Aquí</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Tamaño</translation>
    </message>
    <message>
        <source>On this machine</source>
        <translation>En este equipo</translation>
    </message>
    <message>
        <source>With captions</source>
        <translation>Con subtítulos</translation>
    </message>
    <message>
        <source>Licence</source>
        <translation>Licencia</translation>
    </message>
    <message>
        <source>Parley&apos;s CUDA variant</source>
        <translation>la variante CUDA de Parley</translation>
    </message>
    <message>
        <source>runs here</source>
        <translation>funciona aquí</translation>
    </message>
    <message>
        <source>fits this GPU</source>
        <translation>cabe en esta GPU</translation>
    </message>
    <message>
        <source>This computer has no GPU these models can use ({reason}); here they would not run in real time.</source>
        <translation>Este ordenador no tiene una GPU que estos modelos puedan usar ({reason}); aquí no funcionarían en tiempo real.</translation>
    </message>
    <message>
        <source>This computer&apos;s GPU: {name}, {gb} GB.</source>
        <translation>GPU de este ordenador: {name}, {gb} GB.</translation>
    </message>
    <message>
        <source>needs an NVIDIA GPU (its memory need is known once downloaded)</source>
        <translation>necesita una GPU NVIDIA (la memoria que necesita se sabrá una vez descargado)</translation>
    </message>
    <message>
        <source>needs an NVIDIA GPU with {gb} GB and {variant}</source>
        <translation>necesita una GPU NVIDIA con {gb} GB y {variant}</translation>
    </message>
    <message>
        <source>needs an NVIDIA GPU with {gb} GB</source>
        <translation>necesita una GPU NVIDIA con {gb} GB</translation>
    </message>
    <message>
        <source>too big for this GPU: needs {gb} GB</source>
        <translation>demasiado grande para esta GPU: necesita {gb} GB</translation>
    </message>
    <message>
        <source>Precision auto here: {name} does not fit in the {gpu}&apos;s memory ({free} GB free of {total} GB), even in int4.</source>
        <translation>Precisión auto aquí: {name} no cabe en la memoria de la {gpu} ({free} GB libres de {total} GB), ni siquiera en int4.</translation>
    </message>
    <message>
        <source>Precision auto here: {name} does not fit: in int8 it needs about {gb} GB, and the {gpu} has {free} GB free. In int4 (experimental: it can lower the model&apos;s quality) it needs about {lightest} GB: choose int4 below.</source>
        <translation>Precisión auto aquí: {name} no cabe: en int8 necesita unos {gb} GB, y la {gpu} tiene {free} GB libres. En int4 (experimental: puede bajar la calidad del modelo) necesita unos {lightest} GB: elige int4 abajo.</translation>
    </message>
    <message>
        <source>Precision auto here: {precision}: {name} needs about {gb} GB in {precision}, and the {gpu} has {free} GB free.</source>
        <translation>Precisión auto aquí: {precision}: {name} necesita unos {gb} GB en {precision}, y la {gpu} tiene {free} GB libres.</translation>
    </message>
    <message>
        <source>bfloat16 would need about {gb} GB.</source>
        <translation>bfloat16 necesitaría unos {gb} GB.</translation>
    </message>
    <message>
        <source>This GPU has no native bfloat16, which it emulates: the frame may not run in real time.</source>
        <translation>Esta GPU no tiene bfloat16 nativo, que emula: puede que el fotograma no vaya en tiempo real.</translation>
    </message>
    <message>
        <source>Parley was not tested with a particular commit of {repo}: it will keep to the commit of its first download here.</source>
        <translation>Parley no se probó con ningún commit concreto de {repo}: se quedará con el commit de su primera descarga aquí.</translation>
    </message>
    <message>
        <source>Revision {revision} of {repo} (the one Parley was tested with).</source>
        <translation>Revisión {revision} de {repo} (con la que se probó Parley).</translation>
    </message>
    <message>
        <source>Revision {revision} of {repo} (the one first downloaded here).</source>
        <translation>Revisión {revision} de {repo} (la primera descargada aquí).</translation>
    </message>
    <message>
        <source>Revision {revision} of {repo} (chosen here by an update).</source>
        <translation>Revisión {revision} de {repo} (elegida aquí por una actualización).</translation>
    </message>
    <message>
        <source>Revision {revision} is offered: &apos;Update to {revision}&apos; switches to it.</source>
        <translation>Se ofrece la revisión {revision}: «Actualizar a {revision}» cambia a ella.</translation>
    </message>
    <message>
        <source>known once downloaded</source>
        <translation>se sabrá una vez descargado</translation>
    </message>
    <message>
        <source>{captions}: runs here</source>
        <translation>{captions}: funciona aquí</translation>
    </message>
    <message>
        <source>{captions}: does not fit in this computer&apos;s memory</source>
        <translation>{captions}: no cabe en la memoria de este ordenador</translation>
    </message>
    <message>
        <source>{captions}: needs an NVIDIA GPU with {gb} GB</source>
        <translation>{captions}: necesita una GPU NVIDIA con {gb} GB</translation>
    </message>
    <message>
        <source>{captions}: does not fit beside it on this {total} GB GPU (the pair needs {gb} GB)</source>
        <translation>{captions}: no cabe a su lado en esta GPU de {total} GB (los dos modelos necesitan {gb} GB)</translation>
    </message>
    <message>
        <source>{captions}: fits in {precision} ({gb} GB)</source>
        <translation>{captions}: cabe en {precision} ({gb} GB)</translation>
    </message>
    <message>
        <source>A voice model reads text aloud; this one needs an NVIDIA GPU.</source>
        <translation>Un modelo de voz lee texto en voz alta; este necesita una GPU NVIDIA.</translation>
    </message>
    <message>
        <source>A voice model reads the conversation&apos;s turns aloud (a turn&apos;s menu: Read aloud); this one runs on any CPU, no GPU needed. Parley downloads it with its shipped voices from the ungated {plain}; a voice made from your own recording needs the gated {cloning} (accept its terms on Hugging Face), which Parley uses once it is in the cache.</source>
        <translation>Un modelo de voz lee en voz alta los turnos de la conversación (menú de un turno: Leer en voz alta); este funciona en cualquier procesador, sin GPU. Parley lo descarga con sus voces incluidas desde {plain}, de acceso libre; una voz hecha con su propia grabación necesita {cloning}, de acceso restringido (acepte sus condiciones en Hugging Face), que Parley usa en cuanto está en la caché.</translation>
    </message>
    <message>
        <source>Remove {name} from this computer? Its files in {folder} are deleted; you can download it again later.</source>
        <translation>¿Quitar {name} de este ordenador? Sus archivos en {folder} se borran; puede descargarlo de nuevo más tarde.</translation>
    </message>
</context>
<context>
    <name>ModelManagerDialog</name>
    <message>
        <source>Models</source>
        <translation>Modelos</translation>
    </message>
    <message>
        <source>Cancel download</source>
        <translation>Cancelar descarga</translation>
    </message>
    <message>
        <source>auto: the heaviest precision that fits in the GPU&apos;s free memory (bfloat16, else int8); int4 is experimental: it fits an 8 GB card but can lower the model&apos;s quality</source>
        <translation>auto: la precisión más pesada que cabe en la memoria libre de la GPU (bfloat16, si no int8); int4 es experimental: cabe en una tarjeta de 8 GB pero puede bajar la calidad del modelo</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Dispositivo</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Precisión</translation>
    </message>
    <message>
        <source>Open models folder</source>
        <translation>Abrir la carpeta de modelos</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>Descargar</translation>
    </message>
    <message>
        <source>Check for update</source>
        <translation>Buscar actualización</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Quitar</translation>
    </message>
    <message>
        <source>Delete this voice model&apos;s files from this computer</source>
        <translation>Borrar los archivos de este modelo de voz de este ordenador</translation>
    </message>
    <message>
        <source>Use this model</source>
        <translation>Usar este modelo</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Cerrar</translation>
    </message>
    <message>
        <source>Your language model...</source>
        <translation>Su modelo de lenguaje...</translation>
    </message>
    <message>
        <source>not downloaded</source>
        <translation>sin descargar</translation>
    </message>
    <message numerus="yes">
        <source>partly downloaded (%n files missing)</source>
        <translation>
            <numerusform>descargado en parte (falta %n archivo)</numerusform>
            <numerusform>descargado en parte (faltan %n archivos)</numerusform>
        </translation>
    </message>
    <message>
        <source>unknown: {problem}</source>
        <translation>desconocido: {problem}</translation>
    </message>
    <message>
        <source>built on first use (about a minute)</source>
        <translation>se crea al usarlo por primera vez (un minuto, más o menos)</translation>
    </message>
    <message>
        <source>in use · {badge}</source>
        <translation>en uso · {badge}</translation>
    </message>
    <message>
        <source>{gb} GB</source>
        <translation>{gb} GB</translation>
    </message>
    <message>
        <source>With captions: {each}.</source>
        <translation>Con subtítulos: {each}.</translation>
    </message>
    <message>
        <source>A caption model writes what the person says: it runs beside a conversation model, and is not one to talk to.</source>
        <translation>Un modelo de subtítulos escribe lo que dice la persona: funciona junto a un modelo de conversación, y no es uno con el que hablar.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Non-commercial use only&lt;/b&gt; ({licence}).</source>
        <translation>&lt;b&gt;Solo para uso no comercial&lt;/b&gt; ({licence}).</translation>
    </message>
    <message>
        <source>&lt;b&gt;Licence:&lt;/b&gt; {licence}. This model is gated: open &lt;a href=&apos;{page}&apos;&gt;{page}&lt;/a&gt;, accept the terms while logged in, then set HF_TOKEN (or run &lt;code&gt;hf auth login&lt;/code&gt;) before downloading.</source>
        <translation>&lt;b&gt;Licencia:&lt;/b&gt; {licence}. Este modelo tiene acceso restringido: abre &lt;a href=&apos;{page}&apos;&gt;{page}&lt;/a&gt;, acepta las condiciones con la sesión iniciada y define HF_TOKEN (o ejecuta &lt;code&gt;hf auth login&lt;/code&gt;) antes de descargar.</translation>
    </message>
    <message>
        <source>Source: &lt;a href=&apos;{page}&apos;&gt;{page}&lt;/a&gt; · licence {licence}</source>
        <translation>Fuente: &lt;a href=&apos;{page}&apos;&gt;{page}&lt;/a&gt; · licencia {licence}</translation>
    </message>
    <message>
        <source>Update to {revision}</source>
        <translation>Actualizar a {revision}</translation>
    </message>
    <message>
        <source>Downloading {name}...</source>
        <translation>Descargando {name}...</translation>
    </message>
    <message>
        <source>{name} is about {gb} GB. The disk that holds {folder} has {free} GB free.</source>
        <translation>{name} ocupa unos {gb} GB. El disco que contiene {folder} tiene {free} GB libres.</translation>
    </message>
    <message>
        <source>That is not enough: free some space first.</source>
        <translation>No es suficiente: libera espacio primero.</translation>
    </message>
    <message>
        <source>It {badge}: on this computer it would not run in real time.</source>
        <translation>Este modelo {badge}: en este ordenador no funcionaría en tiempo real.</translation>
    </message>
    <message>
        <source>Download {name}?</source>
        <translation>¿Descargar {name}?</translation>
    </message>
    <message>
        <source>Remove {name}?</source>
        <translation>¿Quitar {name}?</translation>
    </message>
    <message numerus="yes">
        <source>Removed {name} (%n files).</source>
        <translation>
            <numerusform>{name} quitado (%n archivo).</numerusform>
            <numerusform>{name} quitado (%n archivos).</numerusform>
        </translation>
    </message>
    <message>
        <source>{name} could not be removed: {problem}</source>
        <translation>No se pudo quitar {name}: {problem}</translation>
    </message>
    <message>
        <source>Asking the hub about {name}...</source>
        <translation>Preguntando al hub por {name}...</translation>
    </message>
    <message>
        <source>Updating {name} to {revision}...</source>
        <translation>Actualizando {name} a {revision}...</translation>
    </message>
    <message>
        <source>Download cancelled; completed files are kept, the rest restarts next time.</source>
        <translation>Descarga cancelada; los archivos completos se conservan, el resto empezará de nuevo la próxima vez.</translation>
    </message>
    <message>
        <source>{what} {done} / {total} GB</source>
        <translation>{what} {done} / {total} GB</translation>
    </message>
    <message>
        <source>Downloaded to {folder}</source>
        <translation>Descargado en {folder}</translation>
    </message>
    <message>
        <source>Checking for an update failed: {problem}</source>
        <translation>La búsqueda de actualización falló: {problem}</translation>
    </message>
    <message>
        <source>Download failed: {problem}</source>
        <translation>La descarga falló: {problem}</translation>
    </message>
    <message>
        <source>{name} is up to date: the hub&apos;s main is at {revision}, the revision in use.</source>
        <translation>{name} está al día: la rama main del hub está en {revision}, la revisión en uso.</translation>
    </message>
    <message>
        <source>The hub has another revision of {name}: {revision} (in use: {in_use}). &apos;Update to {revision}&apos; downloads it (files that did not change are not downloaded again); until then nothing changes.</source>
        <translation>El hub tiene otra revisión de {name}: {revision} (en uso: {in_use}). «Actualizar a {revision}» la descarga (los archivos que no cambiaron no se vuelven a descargar); hasta entonces no cambia nada.</translation>
    </message>
    <message>
        <source>none yet</source>
        <translation>ninguna todavía</translation>
    </message>
</context>
<context>
    <name>ModelTexts</name>
    <message>
        <source>{name} {untrained}: a tiny random-weight model built on this machine</source>
        <translation>{name} {untrained}: un modelo diminuto de pesos aleatorios creado en este equipo</translation>
    </message>
    <message>
        <source>exercises the whole pipeline</source>
        <translation>ejercita toda la cadena</translation>
    </message>
    <message>
        <source>Moshi with a male voice (kyutai), bf16 weights</source>
        <translation>Moshi con voz masculina (kyutai), pesos bf16</translation>
    </message>
    <message>
        <source>Moshi with a female voice (kyutai), bf16 weights</source>
        <translation>Moshi con voz femenina (kyutai), pesos bf16</translation>
    </message>
    <message>
        <source>Moshi with a female voice, RL-aligned by kyutai for better turn-taking (pauses, backchannels, interruptions)</source>
        <translation>Moshi con voz femenina, alineado por kyutai con RL para turnos de palabra mejores (pausas, asentimientos, interrupciones)</translation>
    </message>
    <message>
        <source>PersonaPlex-7B (NVIDIA): choose a voice and a text role prompt</source>
        <translation>PersonaPlex-7B (NVIDIA): elige una voz y un rol escrito</translation>
    </message>
    <message>
        <source>PersonaPlex-7B RL-aligned by kyutai for better turn-taking (pauses, backchannels, interruptions)</source>
        <translation>PersonaPlex-7B alineado por kyutai con RL para turnos de palabra mejores (pausas, asentimientos, interrupciones)</translation>
    </message>
    <message>
        <source>choose a voice and a text role prompt</source>
        <translation>elige una voz y un rol escrito</translation>
    </message>
    <message>
        <source>Hibiki-Zero 3B (kyutai): live interpreter, French, Spanish, Portuguese or German speech in, English speech and text out</source>
        <translation>Hibiki-Zero 3B (kyutai): intérprete en directo, voz en francés, español, portugués o alemán de entrada, voz y texto en inglés de salida</translation>
    </message>
    <message>
        <source>Hibiki 2B (kyutai): live interpreter, French speech in, English speech and text out</source>
        <translation>Hibiki 2B (kyutai): intérprete en directo, voz en francés de entrada, voz y texto en inglés de salida</translation>
    </message>
    <message>
        <source>Hibiki-M 1B (kyutai): live interpreter, French speech in, English speech and text out</source>
        <translation>Hibiki-M 1B (kyutai): intérprete en directo, voz en francés de entrada, voz y texto en inglés de salida</translation>
    </message>
    <message>
        <source>8 codebooks per stream</source>
        <translation>8 libros de códigos por flujo</translation>
    </message>
    <message>
        <source>{name} {untrained}: a tiny random-weight model in Hibiki-Zero&apos;s layout built on this machine; it translates nothing</source>
        <translation>{name} {untrained}: un modelo diminuto de pesos aleatorios con la estructura de Hibiki-Zero, creado en este equipo; no traduce nada</translation>
    </message>
    <message>
        <source>exercises the interpreter path</source>
        <translation>ejercita el camino del intérprete</translation>
    </message>
    <message>
        <source>{name} {untrained}: a tiny random-weight model in Kyutai STT 1B&apos;s layout built on this machine</source>
        <translation>{name} {untrained}: un modelo diminuto de pesos aleatorios con la estructura de Kyutai STT 1B, creado en este equipo</translation>
    </message>
    <message>
        <source>exercises the captioning path</source>
        <translation>ejercita el camino de los subtítulos</translation>
    </message>
    <message>
        <source>Kyutai STT 1B: English and French speech to text, 0.5 s behind the words</source>
        <translation>Kyutai STT 1B: voz a texto en inglés y francés, 0,5 s detrás de las palabras</translation>
    </message>
    <message>
        <source>with voice-activity heads</source>
        <translation>con cabezales de actividad de voz</translation>
    </message>
    <message>
        <source>Kyutai STT 2.6B: English speech to text, 2.5 s behind the words</source>
        <translation>Kyutai STT 2.6B: voz a texto en inglés, 2,5 s detrás de las palabras</translation>
    </message>
    <message>
        <source>Kyutai TTS 1.6B: English and French text to speech, word by word as the text arrives, with kyutai&apos;s voices</source>
        <translation>Kyutai TTS 1.6B: texto a voz en inglés y francés, palabra a palabra según llega el texto, con las voces de kyutai</translation>
    </message>
    <message>
        <source>in English</source>
        <translation>en inglés</translation>
    </message>
    <message>
        <source>in French</source>
        <translation>en francés</translation>
    </message>
    <message>
        <source>in German</source>
        <translation>en alemán</translation>
    </message>
    <message>
        <source>in Portuguese</source>
        <translation>en portugués</translation>
    </message>
    <message>
        <source>in Italian</source>
        <translation>en italiano</translation>
    </message>
    <message>
        <source>in Spanish</source>
        <translation>en español</translation>
    </message>
    <message>
        <source>in Dutch</source>
        <translation>en neerlandés</translation>
    </message>
    <message>
        <source>Pocket TTS {language}, {layers} layers: text to speech with its shipped voices</source>
        <translation>Pocket TTS {language}, {layers} capas: texto a voz con sus voces incluidas</translation>
    </message>
    <message>
        <source>needs an NVIDIA GPU: precision auto loads bfloat16 where it fits in the GPU&apos;s free memory, else int8 weights (int4 is experimental and opt-in)</source>
        <translation>necesita una GPU NVIDIA: la precisión auto carga bfloat16 si cabe en la memoria libre de la GPU, si no pesos int8 (int4 es experimental y a elección)</translation>
    </message>
    <message>
        <source>runs on an NVIDIA GPU or, slowly, on the CPU</source>
        <translation>funciona en una GPU NVIDIA o, despacio, en la CPU</translation>
    </message>
    <message>
        <source>runs on the CPU in real time</source>
        <translation>funciona en la CPU en tiempo real</translation>
    </message>
    <message>
        <source>{first}; {then}</source>
        <translation>{first}; {then}</translation>
    </message>
    <message>
        <source>{gb} GB in {precision}</source>
        <translation>{gb} GB en {precision}</translation>
    </message>
    <message>
        <source>GPU memory in use, as measured on an {gpu} after live frames: {each}.</source>
        <translation>Memoria de GPU en uso, medida en una {gpu} tras fotogramas en directo: {each}.</translation>
    </message>
    <message>
        <source>Licence: {licence}.</source>
        <translation>Licencia: {licence}.</translation>
    </message>
    <message>
        <source>Non-commercial use only: not for work you are paid for or a product you sell.</source>
        <translation>Solo para uso no comercial: no para un trabajo remunerado ni para un producto que vendas.</translation>
    </message>
    <message>
        <source>Gated: accept its terms on Hugging Face (logged in) and give Parley your access token before downloading.</source>
        <translation>Acceso restringido: acepta sus condiciones en Hugging Face (con la sesión iniciada) y da a Parley tu token de acceso antes de descargar.</translation>
    </message>
    <message>
        <source>non-commercial</source>
        <translation>no comercial</translation>
    </message>
    <message>
        <source>gated: accept on Hugging Face</source>
        <translation>acceso restringido: acepta en Hugging Face</translation>
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
        <translation>leyendo los pesos y eligiendo los núcleos más rápidos para este ordenador...</translation>
    </message>
    <message>
        <source>on</source>
        <translation>activado</translation>
    </message>
    <message>
        <source>warming up</source>
        <translation>preparándose</translation>
    </message>
    <message>
        <source>off</source>
        <translation>desactivado</translation>
    </message>
    <message>
        <source>Loading model {name}: {stage}</source>
        <translation>Cargando el modelo {name}: {stage}</translation>
    </message>
    <message>
        <source>No model loaded (Model → Model manager...)</source>
        <translation>No hay ningún modelo cargado (Modelo → Gestor de modelos...)</translation>
    </message>
    <message>
        <source> · CUDA graph: {state}</source>
        <translation> · grafo CUDA: {state}</translation>
    </message>
    <message>
        <source>Model: {label} · {device} · {precision}</source>
        <translation>Modelo: {label} · {device} · {precision}</translation>
    </message>
    <message>
        <source>Persona: none (a conversation saved before personas)</source>
        <translation>Persona: ninguna (una conversación guardada antes de las personas)</translation>
    </message>
    <message>
        <source>Persona: {name} · waits for you to speak first · this model takes no voice or role</source>
        <translation>Persona: {name} · espera a que hables primero · este modelo no admite voz ni papel</translation>
    </message>
    <message>
        <source>Persona: {name} · this model takes no voice or role</source>
        <translation>Persona: {name} · este modelo no admite voz ni papel</translation>
    </message>
    <message>
        <source>Persona: {name} · voice: {voice} · role: {role}</source>
        <translation>Persona: {name} · voz: {voice} · papel: {role}</translation>
    </message>
    <message>
        <source>Voice: {voice}</source>
        <translation>Voz: {voice}</translation>
    </message>
    <message>
        <source>none</source>
        <translation>ninguna</translation>
    </message>
</context>
<context>
    <name>Notices</name>
    <message>
        <source>The conversation is back in Parley&apos;s window; save it to keep it.</source>
        <translation>La conversación ha vuelto a la ventana de Parley; guárdala para conservarla.</translation>
    </message>
    <message>
        <source>Parley: conversation recovered</source>
        <translation>Parley: conversación recuperada</translation>
    </message>
    <message>
        <source>Parley: recovery stopped</source>
        <translation>Parley: recuperación detenida</translation>
    </message>
    <message>
        <source>Parley: model download</source>
        <translation>Parley: descarga del modelo</translation>
    </message>
</context>
<context>
    <name>OpenMic</name>
    <message>
        <source>Open mic is on, with echo cancellation: speakers work; headphones still sound cleanest.</source>
        <translation>El micrófono abierto está activado, con cancelación de eco: los altavoces funcionan; los auriculares siguen sonando más limpios.</translation>
    </message>
    <message>
        <source>Open mic is on and echo cancellation is unavailable: use headphones, or the assistant will hear itself.</source>
        <translation>El micrófono abierto está activado y la cancelación de eco no está disponible: usa auriculares o el asistente se oirá a sí mismo.</translation>
    </message>
    <message>
        <source>Open mic is on and echo cancellation is off (Audio menu): use headphones, or the assistant will hear itself.</source>
        <translation>El micrófono abierto está activado y la cancelación de eco está desactivada (menú Audio): usa auriculares o el asistente se oirá a sí mismo.</translation>
    </message>
</context>
<context>
    <name>PersonaDialog</name>
    <message>
        <source>Choosing a persona starts a new conversation with it; the current conversation is kept in the library. Edits of the personas that come with Parley are saved as your own copy, which Reset undoes.</source>
        <translation>Elegir una persona empieza una conversación nueva con ella; la conversación actual se guarda en la biblioteca. Los cambios en las personas que vienen con Parley se guardan como una copia tuya, que Restablecer deshace.</translation>
    </message>
    <message>
        <source>{name}  ·  edited</source>
        <translation>{name}  ·  editada</translation>
    </message>
    <message>
        <source>{name}  ·  yours</source>
        <translation>{name}  ·  tuya</translation>
    </message>
    <message>
        <source>{name}  ·  damaged</source>
        <translation>{name}  ·  dañada</translation>
    </message>
    <message>
        <source>Personas</source>
        <translation>Personas</translation>
    </message>
    <message>
        <source>personas</source>
        <translation>personas</translation>
    </message>
    <message>
        <source>Ne&amp;w</source>
        <translation>N&amp;ueva</translation>
    </message>
    <message>
        <source>A new persona with the selected one&apos;s settings</source>
        <translation>Una persona nueva con los ajustes de la seleccionada</translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation>&amp;Eliminar</translation>
    </message>
    <message>
        <source>S&amp;ave</source>
        <translation>&amp;Guardar</translation>
    </message>
    <message>
        <source>Start &amp;conversation</source>
        <translation>Empezar &amp;conversación</translation>
    </message>
    <message>
        <source>voice</source>
        <translation>voz</translation>
    </message>
    <message>
        <source>role</source>
        <translation>papel</translation>
    </message>
    <message>
        <source>Empty: the model&apos;s default role ({role})</source>
        <translation>Vacío: el papel predeterminado del modelo ({role})</translation>
    </message>
    <message>
        <source>Temperature of speech</source>
        <translation>Temperatura de la voz</translation>
    </message>
    <message>
        <source>How varied the speech is (0 = always the likeliest; default {value})</source>
        <translation>Cuánto varía la voz (0 = siempre lo más probable; predeterminado {value})</translation>
    </message>
    <message>
        <source>Temperature of words</source>
        <translation>Temperatura de las palabras</translation>
    </message>
    <message>
        <source>How varied the words are (default {value})</source>
        <translation>Cuánto varían las palabras (predeterminado {value})</translation>
    </message>
    <message>
        <source>Top-k of speech</source>
        <translation>Top-k de la voz</translation>
    </message>
    <message>
        <source>Audio tokens to choose from (default {value})</source>
        <translation>Tokens de audio entre los que elegir (predeterminado {value})</translation>
    </message>
    <message>
        <source>Top-k of words</source>
        <translation>Top-k de las palabras</translation>
    </message>
    <message>
        <source>Words to choose from (default {value})</source>
        <translation>Palabras entre las que elegir (predeterminado {value})</translation>
    </message>
    <message>
        <source>Style</source>
        <translation>Estilo</translation>
    </message>
    <message>
        <source>How varied the assistant&apos;s speech and words are.</source>
        <translation>Cuánto varían la voz y las palabras del asistente.</translation>
    </message>
    <message>
        <source>Numbers...</source>
        <translation>Números...</translation>
    </message>
    <message>
        <source>Show the sampling settings the style stands for (temperature and top-k).</source>
        <translation>Mostrar los ajustes de muestreo que representa el estilo (temperatura y top-k).</translation>
    </message>
    <message>
        <source>speech</source>
        <translation>voz</translation>
    </message>
    <message>
        <source>words</source>
        <translation>palabras</translation>
    </message>
    <message>
        <source>Wait for me to speak first</source>
        <translation>Esperar a que yo hable primero</translation>
    </message>
    <message>
        <source>The assistant stays silent until you press Talk or speak.</source>
        <translation>El asistente guarda silencio hasta que pulses Hablar o hables.</translation>
    </message>
    <message>
        <source>&amp;Name</source>
        <translation>&amp;Nombre</translation>
    </message>
    <message>
        <source>&amp;Voice</source>
        <translation>&amp;Voz</translation>
    </message>
    <message>
        <source>&amp;Role</source>
        <translation>&amp;Papel</translation>
    </message>
    <message>
        <source>&amp;Style</source>
        <translation>E&amp;stilo</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Temperatura</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>The personas that come with Parley keep their names; New makes one of yours.</source>
        <translation>Las personas que vienen con Parley conservan su nombre; Nueva crea una tuya.</translation>
    </message>
    <message>
        <source>R&amp;eset</source>
        <translation>&amp;Restablecer</translation>
    </message>
    <message>
        <source>Comes with Parley: cannot be deleted</source>
        <translation>Viene con Parley: no se puede eliminar</translation>
    </message>
    <message>
        <source>Undo your changes: back to how Parley ships it</source>
        <translation>Deshacer tus cambios: volver a como la trae Parley</translation>
    </message>
    <message>
        <source>Delete this persona</source>
        <translation>Eliminar esta persona</translation>
    </message>
</context>
<context>
    <name>PersonasModel</name>
    <message>
        <source>This model has no voice or role prompt: it speaks in the voice it was trained with. The style and &quot;wait for me&quot; apply; the voice and role are kept for PersonaPlex.</source>
        <translation>Este modelo no admite indicación de voz ni de papel: habla con la voz con la que se entrenó. El estilo y «esperar a que yo hable» se aplican; la voz y el papel se conservan para PersonaPlex.</translation>
    </message>
    <message>
        <source>PersonaPlex speaks with the persona&apos;s voice and plays its role.</source>
        <translation>PersonaPlex habla con la voz de la persona e interpreta su papel.</translation>
    </message>
    <message>
        <source>The voice and role apply to PersonaPlex models; the style and &quot;wait for me&quot; to every model.</source>
        <translation>La voz y el papel se aplican a los modelos PersonaPlex; el estilo y «esperar a que yo hable», a todos los modelos.</translation>
    </message>
    <message>
        <source>Steady</source>
        <translation>Estable</translation>
    </message>
    <message>
        <source>Keeps to the likeliest words and sounds: predictable, sometimes flat.</source>
        <translation>Se ciñe a las palabras y sonidos más probables: previsible, a veces plano.</translation>
    </message>
    <message>
        <source>Calm</source>
        <translation>Tranquilo</translation>
    </message>
    <message>
        <source>A little less varied than Balanced: unhurried and clear.</source>
        <translation>Algo menos variado que Equilibrado: pausado y claro.</translation>
    </message>
    <message>
        <source>Balanced</source>
        <translation>Equilibrado</translation>
    </message>
    <message>
        <source>The model&apos;s own defaults.</source>
        <translation>Los valores predeterminados del modelo.</translation>
    </message>
    <message>
        <source>Relaxed</source>
        <translation>Relajado</translation>
    </message>
    <message>
        <source>The words vary more than Balanced; the voice the same.</source>
        <translation>Las palabras varían más que en Equilibrado; la voz, igual.</translation>
    </message>
    <message>
        <source>Lively</source>
        <translation>Animado</translation>
    </message>
    <message>
        <source>Varied speech and words: surprising, now and then off the point.</source>
        <translation>Voz y palabras variadas: sorprendente, de vez en cuando se va por las ramas.</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>Personalizado</translation>
    </message>
    <message>
        <source>Set with the numbers (Numbers...).</source>
        <translation>Definido con los números (Números...).</translation>
    </message>
    <message>
        <source>the model&apos;s default voice</source>
        <translation>la voz predeterminada del modelo</translation>
    </message>
    <message>
        <source>no voice prompt</source>
        <translation>sin indicación de voz</translation>
    </message>
    <message>
        <source>My persona</source>
        <translation>Mi persona</translation>
    </message>
    <message>
        <source>My persona {n}</source>
        <translation>Mi persona {n}</translation>
    </message>
    <message>
        <source>Made {name}; edit it and save.</source>
        <translation>{name} creada; edítala y guárdala.</translation>
    </message>
    <message>
        <source>Saved {name}.</source>
        <translation>{name} guardada.</translation>
    </message>
    <message>
        <source>Reset {name}.</source>
        <translation>{name} restablecida.</translation>
    </message>
    <message>
        <source>Deleted {name}.</source>
        <translation>{name} eliminada.</translation>
    </message>
</context>
<context>
    <name>PlaybackCapture</name>
    <message>
        <source>What {device} plays</source>
        <translation>Lo que reproduce {device}</translation>
    </message>
    <message>
        <source>this PortAudio has no WASAPI loopback inputs</source>
        <translation>este PortAudio no tiene entradas de bucle invertido WASAPI</translation>
    </message>
    <message>
        <source>macOS needs a loopback device (such as BlackHole): make it the output of what you want to hear, and choose it here as the input</source>
        <translation>macOS necesita un dispositivo de bucle invertido (como BlackHole): conviértalo en la salida de lo que quiere oír y elíjalo aquí como entrada</translation>
    </message>
    <message>
        <source>it needs PulseAudio or PipeWire and their ALSA plugin (the &apos;pulse&apos; device)</source>
        <translation>necesita PulseAudio o PipeWire y su complemento ALSA (el dispositivo «pulse»)</translation>
    </message>
    <message>
        <source>the sound server&apos;s outputs cannot be listed ({problem})</source>
        <translation>no se pueden listar las salidas del servidor de sonido ({problem})</translation>
    </message>
    <message>
        <source>the sound server has no outputs</source>
        <translation>el servidor de sonido no tiene salidas</translation>
    </message>
</context>
<context>
    <name>PortalGrab</name>
    <message>
        <source>This desktop offers programs no desktop-wide keys (its portal has no GlobalShortcuts interface: {detail}).</source>
        <translation>Este escritorio no ofrece teclas globales a los programas (su portal no tiene la interfaz GlobalShortcuts: {detail}).</translation>
    </message>
    <message>
        <source>A desktop-wide key on Wayland needs the Python package jeepney, which is not installed.</source>
        <translation>Una tecla global en Wayland necesita el paquete de Python jeepney, que no está instalado.</translation>
    </message>
    <message>
        <source>Parley could not reach the desktop&apos;s session bus for a desktop-wide key ({problem}).</source>
        <translation>Parley no pudo acceder al bus de sesión del escritorio para una tecla global ({problem}).</translation>
    </message>
    <message>
        <source>The desktop refused a desktop-wide key: {detail}.</source>
        <translation>El escritorio rechazó una tecla global: {detail}.</translation>
    </message>
    <message>
        <source>The desktop would not open a session for desktop-wide keys.</source>
        <translation>El escritorio no quiso abrir una sesión para teclas globales.</translation>
    </message>
    <message>
        <source>Talk to Parley</source>
        <translation>Hablar con Parley</translation>
    </message>
    <message>
        <source>You turned the desktop-wide key down in the desktop&apos;s question; choose it again in Audio → Talk key to be asked again.</source>
        <translation>Rechazaste la tecla global en la pregunta del escritorio; vuelve a elegirla en Audio → Tecla para hablar para que te lo pregunte de nuevo.</translation>
    </message>
    <message>
        <source>The desktop did not give Parley {key} or another key.</source>
        <translation>El escritorio no le dio a Parley {key} ni ninguna otra tecla.</translation>
    </message>
    <message>
        <source>The desktop&apos;s session bus went away ({problem}); the desktop-wide key stopped.</source>
        <translation>El bus de sesión del escritorio desapareció ({problem}); la tecla global se detuvo.</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>&amp;Ver en:</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>Ficheros de &amp;tipo:</translation>
    </message>
</context>
<context>
    <name>ReadAloud</name>
    <message>
        <source>Read aloud needs a Pocket TTS voice model: download one in the model manager (Model menu, Model manager).</source>
        <translation>Leer en voz alta necesita un modelo de voz Pocket TTS: descargue uno en el gestor de modelos (menú Modelo, Gestor de modelos).</translation>
    </message>
    <message>
        <source>This turn has no words to read.</source>
        <translation>Este turno no tiene palabras que leer.</translation>
    </message>
    <message>
        <source>Reading aloud with {voice} ({model}); Esc stops.</source>
        <translation>Leyendo en voz alta con {voice} ({model}); Esc lo detiene.</translation>
    </message>
    <message>
        <source>Reading aloud failed: {problem}</source>
        <translation>La lectura en voz alta falló: {problem}</translation>
    </message>
</context>
<context>
    <name>ReadAloudControls</name>
    <message>
        <source>Read aloud</source>
        <translation>Leer en voz alta</translation>
    </message>
    <message>
        <source>Stop reading</source>
        <translation>Detener la lectura</translation>
    </message>
    <message>
        <source>Stop reading aloud (Esc)</source>
        <translation>Detener la lectura en voz alta (Esc)</translation>
    </message>
    <message>
        <source>Model manager...</source>
        <translation>Gestor de modelos...</translation>
    </message>
    <message>
        <source>Read aloud with {voice}</source>
        <translation>Leer en voz alta con {voice}</translation>
    </message>
    <message>
        <source>Voice</source>
        <translation>Voz</translation>
    </message>
</context>
<context>
    <name>RecordVoiceDialog</name>
    <message>
        <source>The North Wind and the Sun were disputing which was the stronger, when a traveller came along wrapped in a warm cloak. They agreed that the one who first succeeded in making the traveller take his cloak off should be considered stronger than the other. Then the North Wind blew as hard as he could, but the more he blew, the more closely did the traveller fold his cloak around him; and at last the North Wind gave up the attempt. Then the Sun shone out warmly, and immediately the traveller took off his cloak.</source>
        <translation>El viento norte y el sol porfiaban sobre cuál de ellos era el más fuerte, cuando acertó a pasar un viajero envuelto en ancha capa. Convinieron en que quien antes lograra obligar al viajero a quitarse la capa sería considerado más poderoso. El viento norte sopló con gran furia, pero cuanto más soplaba, más se arrebujaba en su capa el viajero; por fin el viento norte abandonó la empresa. Entonces brilló el sol con ardor, e inmediatamente se despojó de su capa el viajero.</translation>
    </message>
    <message>
        <source>Record a voice</source>
        <translation>Grabar una voz</translation>
    </message>
    <message>
        <source>Press Record and read this aloud in your usual voice, for {least} to {most} seconds:</source>
        <translation>Pulsa Grabar y lee esto en voz alta con tu voz habitual, durante {least} a {most} segundos:</translation>
    </message>
    <message>
        <source>Microphone</source>
        <translation>Micrófono</translation>
    </message>
    <message>
        <source>recorded length</source>
        <translation>duración grabada</translation>
    </message>
    <message>
        <source>&amp;Record</source>
        <translation>&amp;Grabar</translation>
    </message>
    <message>
        <source>&amp;Listen</source>
        <translation>&amp;Escuchar</translation>
    </message>
    <message>
        <source>&amp;Name</source>
        <translation>&amp;Nombre</translation>
    </message>
    <message>
        <source>e.g. My voice</source>
        <translation>p. ej. Mi voz</translation>
    </message>
    <message>
        <source>&amp;Save voice</source>
        <translation>&amp;Guardar voz</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>&amp;Detener</translation>
    </message>
    <message>
        <source>Record &amp;again</source>
        <translation>Grabar de &amp;nuevo</translation>
    </message>
    <message>
        <source>Stop &amp;listening</source>
        <translation>Dejar de &amp;escuchar</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} s</translation>
    </message>
    <message numerus="yes">
        <source>Recording... %n s more at least.</source>
        <translation>
            <numerusform>Grabando... al menos %n s más.</numerusform>
            <numerusform>Grabando... al menos %n s más.</numerusform>
        </translation>
    </message>
    <message>
        <source>Recording... you can stop now, or go on (it stops at {most} s).</source>
        <translation>Grabando... puedes parar ya, o seguir (se detiene a los {most} s).</translation>
    </message>
    <message>
        <source>Listen to it; record again if it does not sound like you, or name it and save it.</source>
        <translation>Escúchala; graba de nuevo si no suena como tú, o ponle nombre y guárdala.</translation>
    </message>
    <message>
        <source>Not recording.</source>
        <translation>Sin grabar.</translation>
    </message>
</context>
<context>
    <name>RecoveryDialogs</name>
    <message>
        <source>Delete a crash journal?</source>
        <translation>¿Eliminar un diario de fallos?</translation>
    </message>
    <message>
        <source>Parley did not close properly, and the journal of the conversation it was having cannot be read: {problem}

Delete {journal}? &apos;Keep&apos; leaves it there and asks again at the next start.</source>
        <translation>Parley no se cerró correctamente y no se puede leer el diario de la conversación que tenía abierta: {problem}

¿Eliminar {journal}? «Conservar» lo deja ahí y vuelve a preguntar en el próximo inicio.</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Eliminar</translation>
    </message>
    <message>
        <source>Keep</source>
        <translation>Conservar</translation>
    </message>
    <message>
        <source>It was last saved to {file} {duration} before the end.</source>
        <translation>Se guardó por última vez en {file} {duration} antes del final.</translation>
    </message>
    <message>
        <source>Recover conversation?</source>
        <translation>¿Recuperar la conversación?</translation>
    </message>
    <message>
        <source>Parley did not close properly. Recover the conversation it was having ({duration})?</source>
        <translation>Parley no se cerró correctamente. ¿Recuperar la conversación que tenía abierta ({duration})?</translation>
    </message>
    <message>
        <source>&apos;Later&apos; keeps it for the next start.</source>
        <translation>«Más tarde» la conserva para el próximo inicio.</translation>
    </message>
    <message>
        <source>Recover</source>
        <translation>Recuperar</translation>
    </message>
    <message>
        <source>Later</source>
        <translation>Más tarde</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>Descartar</translation>
    </message>
    <message>
        <source>Rebuilding the conversation...</source>
        <translation>Reconstruyendo la conversación...</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Cancelar</translation>
    </message>
</context>
<context>
    <name>ReplayBar</name>
    <message>
        <source>Play</source>
        <translation>Reproducir</translation>
    </message>
    <message>
        <source>replay position</source>
        <translation>posición de reproducción</translation>
    </message>
    <message>
        <source>You left, assistant right</source>
        <translation>Tú a la izquierda, el asistente a la derecha</translation>
    </message>
    <message>
        <source>Off: both sides mixed on both speakers</source>
        <translation>Desactivado: ambos lados mezclados en los dos altavoces</translation>
    </message>
    <message>
        <source>Close replay</source>
        <translation>Cerrar reproducción</translation>
    </message>
    <message>
        <source>Play or pause the conversation being replayed</source>
        <translation>Reproducir o pausar la conversación que se está reproduciendo</translation>
    </message>
    <message>
        <source>Replay: {title}</source>
        <translation>Reproducción: {title}</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pausa</translation>
    </message>
</context>
<context>
    <name>ReplayPlayer</name>
    <message>
        <source>Cannot replay {file}: {problem}</source>
        <translation>No se puede reproducir {file}: {problem}</translation>
    </message>
    <message>
        <source>Replay could not open the speaker: {problem}</source>
        <translation>La reproducción no pudo abrir el altavoz: {problem}</translation>
    </message>
</context>
<context>
    <name>Sides</name>
    <message>
        <source>You</source>
        <translation>Tú</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>Asistente</translation>
    </message>
    <message>
        <source>Original</source>
        <translation>Original</translation>
    </message>
    <message>
        <source>Interpreter</source>
        <translation>Intérprete</translation>
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
        <translation>Inactivo</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>Cargando…</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Listo</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>En pausa</translation>
    </message>
    <message>
        <source>Waiting for you</source>
        <translation>Esperándote</translation>
    </message>
    <message>
        <source>Listening</source>
        <translation>Escuchando</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>Pensando</translation>
    </message>
    <message>
        <source>Speaking</source>
        <translation>Hablando</translation>
    </message>
</context>
<context>
    <name>TalkKeyDialog</name>
    <message>
        <source>Talk key</source>
        <translation>Tecla para hablar</translation>
    </message>
    <message>
        <source>Talk from any program with a key</source>
        <translation>Hablar desde cualquier programa con una tecla</translation>
    </message>
    <message>
        <source>Space still works while Parley&apos;s window has the focus.</source>
        <translation>Espacio sigue funcionando cuando la ventana de Parley tiene el foco.</translation>
    </message>
    <message>
        <source>Press the key chord to use, for example Ctrl+Alt+Space.</source>
        <translation>Pulsa la combinación de teclas que quieras usar, por ejemplo Ctrl+Alt+Espacio.</translation>
    </message>
    <message>
        <source>Hold to talk (the microphone is open while the key is held)</source>
        <translation>Mantener para hablar (el micrófono está abierto mientras se mantiene la tecla)</translation>
    </message>
    <message>
        <source>Tap to start, tap again to stop</source>
        <translation>Pulsar para empezar, pulsar de nuevo para parar</translation>
    </message>
    <message>
        <source>Key:</source>
        <translation>Tecla:</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <source>Keep running in the tray</source>
        <translation>Seguir en la bandeja del sistema</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>Salir</translation>
    </message>
    <message>
        <source>&amp;Talk</source>
        <translation>&amp;Hablar</translation>
    </message>
    <message>
        <source>The model hears you until you choose Talk again.</source>
        <translation>El modelo te oye hasta que vuelvas a elegir Hablar.</translation>
    </message>
    <message>
        <source>&amp;Open mic (hands-free)</source>
        <translation>Micrófono &amp;abierto (manos libres)</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>&amp;Pausa</translation>
    </message>
    <message>
        <source>Stop the frames (the conversation is kept); choose again to go on.</source>
        <translation>Detener las tramas (la conversación se conserva); elige de nuevo para seguir.</translation>
    </message>
    <message>
        <source>&amp;End conversation</source>
        <translation>&amp;Terminar la conversación</translation>
    </message>
    <message>
        <source>&amp;Show window</source>
        <translation>&amp;Mostrar ventana</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Salir</translation>
    </message>
    <message>
        <source>&amp;Keep running in the tray when the window is closed</source>
        <translation>Se&amp;guir en la bandeja del sistema al cerrar la ventana</translation>
    </message>
    <message>
        <source>Closing the window leaves Parley in the tray.</source>
        <translation>Cerrar la ventana deja Parley en la bandeja del sistema.</translation>
    </message>
    <message>
        <source>This desktop has no tray.</source>
        <translation>Este escritorio no tiene bandeja del sistema.</translation>
    </message>
    <message>
        <source>Close Parley</source>
        <translation>Cerrar Parley</translation>
    </message>
    <message>
        <source>Keep Parley running in the tray when its window is closed? You can change this in View → Keep running in the tray.</source>
        <translation>¿Mantener Parley en la bandeja del sistema al cerrar su ventana? Puedes cambiarlo en Ver → Seguir en la bandeja del sistema.</translation>
    </message>
</context>
<context>
    <name>TrayModel</name>
    <message>
        <source>Parley: idle</source>
        <translation>Parley: inactivo</translation>
    </message>
    <message>
        <source>Parley: listening to you</source>
        <translation>Parley: te escucha</translation>
    </message>
    <message>
        <source>Parley: the assistant is speaking</source>
        <translation>Parley: el asistente está hablando</translation>
    </message>
    <message>
        <source>Parley: waiting for you to speak first</source>
        <translation>Parley: espera a que hables primero</translation>
    </message>
    <message>
        <source>Parley: too slow for real time</source>
        <translation>Parley: demasiado lento para tiempo real</translation>
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
        <translation>Intérprete: {text}</translation>
    </message>
    <message>
        <source>Assistant: {text}</source>
        <translation>Asistente: {text}</translation>
    </message>
    <message numerus="yes">
        <source>The interpreter heard %n seconds of speech.</source>
        <translation>
            <numerusform>El intérprete oyó %n segundo de voz.</numerusform>
            <numerusform>El intérprete oyó %n segundos de voz.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The interpreter spoke for %n seconds.</source>
        <translation>
            <numerusform>El intérprete habló durante %n segundo.</numerusform>
            <numerusform>El intérprete habló durante %n segundos.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>You spoke for %n seconds.</source>
        <translation>
            <numerusform>Hablaste durante %n segundo.</numerusform>
            <numerusform>Hablaste durante %n segundos.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The assistant spoke for %n seconds.</source>
        <translation>
            <numerusform>El asistente habló durante %n segundo.</numerusform>
            <numerusform>El asistente habló durante %n segundos.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>VoiceLibraryDialog</name>
    <message>
        <source>Audio (*.wav *.flac *.ogg *.mp3);;All files (*)</source>
        <translation>Audio (*.wav *.flac *.ogg *.mp3);;Todos los archivos (*)</translation>
    </message>
    <message>
        <source>NATF0..., VARM...: listed when a PersonaPlex model is loaded.</source>
        <translation>NATF0..., VARM...: aparecen cuando hay un modelo PersonaPlex cargado.</translation>
    </message>
    <message>
        <source>Voices</source>
        <translation>Voces</translation>
    </message>
    <message>
        <source>PersonaPlex speaks with the voice of its persona (Model &gt; Personas). Your own voices can be chosen there by name, and with &quot;parley offline --voice-prompt NAME&quot;.</source>
        <translation>PersonaPlex habla con la voz de su persona (Modelo &gt; Personas). Tus propias voces se pueden elegir allí por su nombre, y con «parley offline --voice-prompt NOMBRE».</translation>
    </message>
    <message>
        <source>voices</source>
        <translation>voces</translation>
    </message>
    <message>
        <source>&amp;Record...</source>
        <translation>&amp;Grabar...</translation>
    </message>
    <message>
        <source>&amp;Import...</source>
        <translation>&amp;Importar...</translation>
    </message>
    <message>
        <source>&amp;Play</source>
        <translation>&amp;Reproducir</translation>
    </message>
    <message>
        <source>Re&amp;name...</source>
        <translation>Re&amp;nombrar...</translation>
    </message>
    <message>
        <source>Remo&amp;ve</source>
        <translation>&amp;Quitar</translation>
    </message>
    <message>
        <source>Your voices are kept in {folder}.</source>
        <translation>Tus voces se guardan en {folder}.</translation>
    </message>
    <message>
        <source>Shipped with the model</source>
        <translation>Incluidas con el modelo</translation>
    </message>
    <message>
        <source>Your voices</source>
        <translation>Tus voces</translation>
    </message>
    <message>
        <source>None yet: record one or import a recording.</source>
        <translation>Ninguna todavía: graba una o importa una grabación.</translation>
    </message>
    <message>
        <source>Sto&amp;p</source>
        <translation>&amp;Detener</translation>
    </message>
    <message>
        <source>Shipped voices have no recording to play.</source>
        <translation>Las voces incluidas no tienen grabación que reproducir.</translation>
    </message>
    <message>
        <source>Import a voice recording</source>
        <translation>Importar una grabación de voz</translation>
    </message>
    <message>
        <source>Import a voice</source>
        <translation>Importar una voz</translation>
    </message>
    <message>
        <source>Name of the voice:</source>
        <translation>Nombre de la voz:</translation>
    </message>
    <message>
        <source>Rename a voice</source>
        <translation>Renombrar una voz</translation>
    </message>
    <message>
        <source>New name for {name}:</source>
        <translation>Nuevo nombre para {name}:</translation>
    </message>
    <message>
        <source>Remove a voice</source>
        <translation>Quitar una voz</translation>
    </message>
    <message>
        <source>Delete the voice {name} and its recording?</source>
        <translation>¿Eliminar la voz {name} y su grabación?</translation>
    </message>
</context>
<context>
    <name>VoiceRecorder</name>
    <message>
        <source>No audio device is open: check the microphone and speaker in the main window.</source>
        <translation>No hay ningún dispositivo de audio abierto: revisa el micrófono y el altavoz en la ventana principal.</translation>
    </message>
    <message>
        <source>The audio device changed while recording: record again.</source>
        <translation>El dispositivo de audio cambió durante la grabación: graba de nuevo.</translation>
    </message>
</context>
<context>
    <name>VoicesModel</name>
    <message>
        <source>Record or import only your own voice, or a voice used with its owner&apos;s consent. Recordings stay on this computer, readable by you only; nothing is sent anywhere.</source>
        <translation>Graba o importa solo tu propia voz, o una voz usada con el consentimiento de su dueño. Las grabaciones se quedan en este ordenador, legibles solo por ti; no se envía nada a ningún sitio.</translation>
    </message>
    <message>
        <source>Saved the voice {name}.</source>
        <translation>Voz {name} guardada.</translation>
    </message>
    <message>
        <source>Imported {name} ({seconds} s).</source>
        <translation>{name} importada ({seconds} s).</translation>
    </message>
    <message>
        <source>Renamed {old} to {new}.</source>
        <translation>{old} se llama ahora {new}.</translation>
    </message>
    <message>
        <source>Removed {name}.</source>
        <translation>{name} quitada.</translation>
    </message>
    <message>
        <source>Playing {name}...</source>
        <translation>Reproduciendo {name}...</translation>
    </message>
</context>
<context>
    <name>WindowsGrab</name>
    <message>
        <source>another program already uses it</source>
        <translation>otro programa ya la usa</translation>
    </message>
    <message>
        <source>Windows error {code}</source>
        <translation>error de Windows {code}</translation>
    </message>
    <message>
        <source>Windows refused {key} as Parley&apos;s talk key: {why}.</source>
        <translation>Windows rechazó {key} como tecla para hablar de Parley: {why}.</translation>
    </message>
</context>
<context>
    <name>X11Grab</name>
    <message>
        <source>The X11 library (libX11) is not installed, so no desktop-wide key can be set.</source>
        <translation>La biblioteca X11 (libX11) no está instalada, así que no se puede definir una tecla global.</translation>
    </message>
    <message>
        <source>Parley could not connect to the X display for a desktop-wide key.</source>
        <translation>Parley no pudo conectarse a la pantalla X para una tecla global.</translation>
    </message>
    <message>
        <source>This keyboard has no {key} key.</source>
        <translation>Este teclado no tiene la tecla {key}.</translation>
    </message>
    <message>
        <source>another program already uses it</source>
        <translation>otro programa ya la usa</translation>
    </message>
    <message>
        <source>X error {code}</source>
        <translation>error de X {code}</translation>
    </message>
    <message>
        <source>The desktop refused {key} as Parley&apos;s talk key: {why}.</source>
        <translation>El escritorio rechazó {key} como tecla para hablar de Parley: {why}.</translation>
    </message>
</context>
</TS>
