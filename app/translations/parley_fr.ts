<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="fr_FR">
<context>
    <name>AudioIO</name>
    <message>
        <source>The audio device stopped responding; reconnecting...</source>
        <translation>Le périphérique audio ne répond plus ; reconnexion...</translation>
    </message>
    <message>
        <source>Audio error: {problem}</source>
        <translation>Erreur audio : {problem}</translation>
    </message>
    <message>
        <source>Opening audio devices...</source>
        <translation>Ouverture des périphériques audio...</translation>
    </message>
    <message>
        <source>No audio device: {problem}</source>
        <translation>Aucun périphérique audio : {problem}</translation>
    </message>
    <message>
        <source>Audio device reconnected.</source>
        <translation>Périphérique audio reconnecté.</translation>
    </message>
    <message>
        <source>the microphone {name} is not available</source>
        <translation>le micro {name} n&apos;est pas disponible</translation>
    </message>
    <message>
        <source>the speaker {name} is not available</source>
        <translation>le haut-parleur {name} n&apos;est pas disponible</translation>
    </message>
    <message>
        <source>there is no default microphone</source>
        <translation>il n&apos;y a pas de micro par défaut</translation>
    </message>
    <message>
        <source>there is no default speaker</source>
        <translation>il n&apos;y a pas de haut-parleur par défaut</translation>
    </message>
</context>
<context>
    <name>AudioMenu</name>
    <message>
        <source>&amp;Echo cancellation</source>
        <translation>Annulation d&apos;é&amp;cho</translation>
    </message>
    <message>
        <source>&amp;Noise suppression</source>
        <translation>&amp;Réduction du bruit</translation>
    </message>
    <message>
        <source>&amp;High-pass filter</source>
        <translation>&amp;Filtre passe-haut</translation>
    </message>
    <message>
        <source>Automatic &amp;gain control</source>
        <translation>Contrôle automatique du &amp;gain</translation>
    </message>
    <message>
        <source>Removes the assistant&apos;s voice from the microphone, so it can be used on speakers.</source>
        <translation>Retire la voix de l&apos;assistant du micro, pour pouvoir utiliser des haut-parleurs.</translation>
    </message>
    <message>
        <source>Reduces steady background noise (fans, hum).</source>
        <translation>Atténue les bruits de fond constants (ventilateurs, ronflements).</translation>
    </message>
    <message>
        <source>Removes rumble below the voice.</source>
        <translation>Retire les grondements sous la voix.</translation>
    </message>
    <message>
        <source>Evens out the microphone level (can raise what is left of the echo).</source>
        <translation>Égalise le niveau du micro (peut renforcer le reste de l&apos;écho).</translation>
    </message>
    <message>
        <source>Microphone processing</source>
        <translation>Traitement du micro</translation>
    </message>
</context>
<context>
    <name>Banner</name>
    <message>
        <source>Resume</source>
        <translation>Reprendre</translation>
    </message>
    <message>
        <source>Details...</source>
        <translation>Détails...</translation>
    </message>
    <message>
        <source>The whole message, to read or to copy</source>
        <translation>Le message complet, à lire ou à copier</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>Masquer</translation>
    </message>
    <message>
        <source>Hide this message (Esc)</source>
        <translation>Masquer ce message (Échap)</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Détails</translation>
    </message>
    <message>
        <source>Copy details</source>
        <translation>Copier les détails</translation>
    </message>
</context>
<context>
    <name>CaptionsModel</name>
    <message>
        <source>No caption model is on this machine: download {models} in the Model manager to see your words in your turns.</source>
        <translation>Aucun modèle de sous-titres sur cette machine : téléchargez {models} dans le gestionnaire de modèles pour voir vos mots dans vos tours de parole.</translation>
    </message>
    <message>
        <source>Loading the caption model {model}...</source>
        <translation>Chargement du modèle de sous-titres {model}...</translation>
    </message>
    <message>
        <source>Captions of what you say: on ({model}).</source>
        <translation>Sous-titres de ce que vous dites : activés ({model}).</translation>
    </message>
</context>
<context>
    <name>ChatDialog</name>
    <message>
        <source>Your language model</source>
        <translation>Votre modèle de langage</translation>
    </message>
    <message>
        <source>Talk with a language model you run (Ollama, LM Studio, llama-server, vLLM): your speech is written by a speech to text, the model answers, and a Pocket TTS voice speaks its answer. Hold Talk while you speak.</source>
        <translation>Parlez avec un modèle de langage que vous faites tourner (Ollama, LM Studio, llama-server, vLLM) : une transcription écrit votre parole, le modèle répond et une voix Pocket TTS dit sa réponse. Maintenez Parler pendant que vous parlez.</translation>
    </message>
    <message>
        <source>Server &amp;address</source>
        <translation>&amp;Adresse du serveur</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>&amp;Modèle</translation>
    </message>
    <message>
        <source>Only where the server asks for one</source>
        <translation>Si le serveur en demande une</translation>
    </message>
    <message>
        <source>&amp;Key</source>
        <translation>C&amp;lé</translation>
    </message>
    <message>
        <source>Speech to te&amp;xt</source>
        <translation>Reconnaissance de la pa&amp;role</translation>
    </message>
    <message>
        <source>A key is kept in your system&apos;s keyring, never in a file.</source>
        <translation>Une clé est gardée dans le trousseau de votre système, jamais dans un fichier.</translation>
    </message>
    <message>
        <source>Let it read the c&amp;lock (today&apos;s date and the time here)</source>
        <translation>Lui laisser lire l&apos;&amp;horloge (la date et l&apos;heure d&apos;ici)</translation>
    </message>
    <message>
        <source>Let it &amp;search your saved conversations</source>
        <translation>Lui laisser chercher dans vos conversations &amp;enregistrées</translation>
    </message>
    <message>
        <source>&amp;Find running servers</source>
        <translation>&amp;Chercher les serveurs lancés</translation>
    </message>
    <message>
        <source>&amp;Talk with it</source>
        <translation>&amp;Parler avec lui</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Fermer</translation>
    </message>
    <message>
        <source>Looking for Ollama and LM Studio on this computer...</source>
        <translation>Recherche d&apos;Ollama et de LM Studio sur cet ordinateur...</translation>
    </message>
</context>
<context>
    <name>ChatLatency</name>
    <message>
        <source>{total} s (your last words {stt_flush} s, the language model {model_first_token} s, its first clause {clause_wait} s, the voice {voice_first_frame} s)</source>
        <translation>{total} s (vos derniers mots {stt_flush} s, le modèle de langage {model_first_token} s, sa première proposition {clause_wait} s, la voix {voice_first_frame} s)</translation>
    </message>
    <message>
        <source>{split}: the median of the answers so far; 95th percentile {percentile} s</source>
        <translation>{split} : la médiane des réponses jusqu&apos;ici ; 95e centile {percentile} s</translation>
    </message>
</context>
<context>
    <name>ChatMode</name>
    <message>
        <source>Your language model: {model} at {url}</source>
        <translation>Votre modèle de langage : {model} à {url}</translation>
    </message>
    <message>
        <source>Give your language model server&apos;s address and the model&apos;s name.</source>
        <translation>Indiquez l&apos;adresse du serveur de votre modèle de langage et le nom du modèle.</translation>
    </message>
    <message>
        <source>A conversation with your language model needs a Pocket TTS voice: download one in the model manager (Model menu, Model manager).</source>
        <translation>Une conversation avec votre modèle de langage demande une voix Pocket TTS : téléchargez-en une dans le gestionnaire de modèles (menu Modèle, Gestionnaire de modèles).</translation>
    </message>
    <message>
        <source>{file} was spoken with the voice {voice} of {voice_model}, which is not on this machine: download it in the model manager (Model menu, Model manager), then open the conversation again.</source>
        <translation>{file} a été dite avec la voix {voice} de {voice_model}, qui n&apos;est pas sur cet ordinateur : téléchargez-la dans le gestionnaire de modèles (menu Modèle, Gestionnaire de modèles), puis rouvrez la conversation.</translation>
    </message>
    <message>
        <source>Loading the speech models and asking {url} for {model}...</source>
        <translation>Chargement des modèles de parole et demande de {model} à {url}...</translation>
    </message>
    <message>
        <source>Talking with {model} at {server}: hold Talk while you speak.</source>
        <translation>Conversation avec {model} sur {server} : maintenez Parler pendant que vous parlez.</translation>
    </message>
    <message>
        <source>Listening: your turn ends when you pause, or when you release Talk.</source>
        <translation>À l&apos;écoute : votre tour finit quand vous faites une pause, ou quand vous relâchez Parler.</translation>
    </message>
    <message>
        <source>Listening: release Talk when you are done.</source>
        <translation>À l&apos;écoute : relâchez Parler quand vous avez fini.</translation>
    </message>
    <message>
        <source>Hold Talk while you speak.</source>
        <translation>Maintenez Parler pendant que vous parlez.</translation>
    </message>
    <message>
        <source>Nothing was heard: hold Talk while you speak.</source>
        <translation>Rien n&apos;a été entendu : maintenez Parler pendant que vous parlez.</translation>
    </message>
    <message>
        <source>{model} answers...</source>
        <translation>{model} répond...</translation>
    </message>
    <message>
        <source>Exported audio: {path}</source>
        <translation>Audio exporté : {path}</translation>
    </message>
    <message>
        <source>You spoke over the answer: it stopped, and keeps the words you heard.</source>
        <translation>Vous avez parlé pendant la réponse : elle s&apos;est arrêtée et garde les mots que vous avez entendus.</translation>
    </message>
    <message>
        <source>Saved: {path}</source>
        <translation>Enregistré : {path}</translation>
    </message>
    <message>
        <source>[It read the clock: {result}]</source>
        <translation>[Il a lu l&apos;horloge : {result}]</translation>
    </message>
    <message>
        <source>[It searched your conversations: {result}]</source>
        <translation>[Il a cherché dans vos conversations : {result}]</translation>
    </message>
    <message>
        <source>[It asked for a tool Parley does not have ({name}): {result}]</source>
        <translation>[Il a demandé un outil que Parley n&apos;a pas ({name}) : {result}]</translation>
    </message>
    <message>
        <source>Hold Talk to answer.</source>
        <translation>Maintenez Parler pour répondre.</translation>
    </message>
    <message>
        <source>Hold Talk to answer. The voice began {latency} after you let go of Talk.</source>
        <translation>Maintenez Parler pour répondre. La voix a commencé {latency} après que vous avez relâché Parler.</translation>
    </message>
</context>
<context>
    <name>ChatServers</name>
    <message>
        <source> or </source>
        <translation> ou </translation>
    </message>
    <message>
        <source>No language model server is running here: start {where}, for example with `ollama serve` and `ollama pull llama3.2`, or give the address of your llama-server or vLLM.</source>
        <translation>Aucun serveur de modèle de langage ne tourne ici : lancez {where}, par exemple avec `ollama serve` et `ollama pull llama3.2`, ou indiquez l&apos;adresse de votre llama-server ou vLLM.</translation>
    </message>
    <message>
        <source>{name} runs at {url} but offers no model: pull or load one (for example `ollama pull llama3.2`).</source>
        <translation>{name} tourne sur {url} mais n&apos;offre aucun modèle : téléchargez-en ou chargez-en un (par exemple `ollama pull llama3.2`).</translation>
    </message>
    <message>
        <source>{name} runs at {url}: choose one of its models.</source>
        <translation>{name} tourne sur {url} : choisissez l&apos;un de ses modèles.</translation>
    </message>
</context>
<context>
    <name>ChatStrip</name>
    <message>
        <source>Stop talking with your language model</source>
        <translation>Arrêter de parler avec votre modèle de langage</translation>
    </message>
</context>
<context>
    <name>ConversationFiles</name>
    <message>
        <source>Untitled conversation</source>
        <translation>Conversation sans titre</translation>
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
        <translation>L&apos;ouverture de {file} a été annulée ; la conversation en cours continue.</translation>
    </message>
    <message>
        <source>Could not export the transcript: {problem}</source>
        <translation>Impossible d&apos;exporter la transcription : {problem}</translation>
    </message>
    <message>
        <source>Exported transcript: {path}</source>
        <translation>Transcription exportée : {path}</translation>
    </message>
    <message>
        <source>Saved: {path}</source>
        <translation>Enregistré : {path}</translation>
    </message>
    <message>
        <source>Exported audio: {path}</source>
        <translation>Audio exporté : {path}</translation>
    </message>
</context>
<context>
    <name>ConversationModel</name>
    <message>
        <source>Loading the model; Talk works once it is ready.</source>
        <translation>Chargement du modèle ; Parler fonctionnera dès qu&apos;il sera prêt.</translation>
    </message>
    <message>
        <source>No model is loaded (Model → Model manager...).</source>
        <translation>Aucun modèle n&apos;est chargé (Modèle → Gestionnaire de modèles...).</translation>
    </message>
    <message>
        <source>No microphone: {problem}</source>
        <translation>Pas de micro : {problem}</translation>
    </message>
    <message>
        <source>The assistant waits for you to speak first.</source>
        <translation>L&apos;assistant attend que vous parliez en premier.</translation>
    </message>
    <message>
        <source>The conversation is kept; press Resume to continue.</source>
        <translation>La conversation est conservée ; cliquez sur Reprendre pour continuer.</translation>
    </message>
    <message>
        <source>The assistant may speak first.</source>
        <translation>L&apos;assistant peut parler en premier.</translation>
    </message>
</context>
<context>
    <name>ConversationPanel</name>
    <message>
        <source>Hold Space (or the Talk button) and speak, or press Start to let the assistant begin. The conversation appears here.</source>
        <translation>Maintenez Espace (ou le bouton Parler) et parlez, ou cliquez sur Démarrer pour laisser l&apos;assistant commencer. La conversation s&apos;affiche ici.</translation>
    </message>
    <message>
        <source>Hold to talk  (Space)</source>
        <translation>Maintenir pour parler  (Espace)</translation>
    </message>
    <message>
        <source>Hold this button, or Space, while you speak.</source>
        <translation>Maintenez ce bouton, ou Espace, pendant que vous parlez.</translation>
    </message>
    <message>
        <source>Open mic (hands-free)</source>
        <translation>Micro ouvert (mains libres)</translation>
    </message>
    <message>
        <source>The model hears the microphone all the time. Echo cancellation (Audio menu) keeps it from hearing itself on speakers.</source>
        <translation>Le modèle entend le micro en permanence. L&apos;annulation d&apos;écho (menu Audio) l&apos;empêche de s&apos;entendre lui-même dans les haut-parleurs.</translation>
    </message>
    <message>
        <source>End</source>
        <translation>Terminer</translation>
    </message>
    <message>
        <source>End this conversation (you are asked to save what you said); a new one waits for Talk or Start.</source>
        <translation>Terminer cette conversation (il vous est proposé d&apos;enregistrer ce que vous avez dit) ; une nouvelle attend Parler ou Démarrer.</translation>
    </message>
    <message>
        <source>Pause</source>
        <translation>Pause</translation>
    </message>
    <message>
        <source>Stop the conversation: the model uses no processor time until you continue.</source>
        <translation>Arrêter la conversation : le modèle n&apos;utilise plus le processeur jusqu&apos;à ce que vous continuiez.</translation>
    </message>
    <message>
        <source>Continue</source>
        <translation>Continuer</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>Démarrer</translation>
    </message>
    <message>
        <source>Run the conversation: the assistant listens and may speak. Talk starts it too.</source>
        <translation>Lancer la conversation : l&apos;assistant écoute et peut parler. Parler la lance aussi.</translation>
    </message>
    <message>
        <source>Hold it (or Space) while you speak.</source>
        <translation>Maintenez-le (ou Espace) pendant que vous parlez.</translation>
    </message>
    <message>
        <source>The assistant waits for you: hold Space (or the Talk button) and speak.</source>
        <translation>L&apos;assistant vous attend : maintenez Espace (ou le bouton Parler) et parlez.</translation>
    </message>
    <message>
        <source>The conversation runs: hold Space (or the Talk button) and speak. It appears here.</source>
        <translation>La conversation est en cours : maintenez Espace (ou le bouton Parler) et parlez. Elle s&apos;affiche ici.</translation>
    </message>
</context>
<context>
    <name>ConversationView</name>
    <message>
        <source>overlaps</source>
        <translation>chevauche</translation>
    </message>
    <message>
        <source>(speech without words)</source>
        <translation>(parole sans mots)</translation>
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
        <translation>macOS ne donne pas encore de touche globale à Parley.</translation>
    </message>
    <message>
        <source>No X11 display or Wayland session was found, so no desktop-wide key can be set.</source>
        <translation>Aucun affichage X11 ni session Wayland n&apos;a été trouvé : aucune touche globale ne peut être définie.</translation>
    </message>
    <message>
        <source>{key} cannot be a desktop-wide key: choose a letter, a digit, Space, a function key or Pause, with Ctrl, Alt or the Super key.</source>
        <translation>{key} ne peut pas être une touche globale : choisissez une lettre, un chiffre, Espace, une touche de fonction ou Pause, avec Ctrl, Alt ou la touche Super.</translation>
    </message>
    <message>
        <source>{key} with only Shift would be taken from every other program&apos;s typing: add Ctrl, Alt or the Super key.</source>
        <translation>{key} avec seulement Maj serait prise à la saisie de tous les autres programmes : ajoutez Ctrl, Alt ou la touche Super.</translation>
    </message>
    <message>
        <source>{key} alone would be taken from every other program&apos;s typing: add Ctrl, Alt or the Super key.</source>
        <translation>{key} seule serait prise à la saisie de tous les autres programmes : ajoutez Ctrl, Alt ou la touche Super.</translation>
    </message>
</context>
<context>
    <name>DesktopTalkKey</name>
    <message>
        <source>{problem} Space in Parley&apos;s window still works.</source>
        <translation>{problem} Espace fonctionne toujours dans la fenêtre de Parley.</translation>
    </message>
</context>
<context>
    <name>DeviceReport</name>
    <message>
        <source>this build of torch ({version}) has no CUDA support</source>
        <translation>cette version de torch ({version}) ne prend pas en charge CUDA</translation>
    </message>
    <message>
        <source>no NVIDIA driver found ({library})</source>
        <translation>aucun pilote NVIDIA trouvé ({library})</translation>
    </message>
    <message>
        <source>CUDA does not initialise: {problem}</source>
        <translation>CUDA ne s&apos;initialise pas : {problem}</translation>
    </message>
    <message>
        <source>the NVIDIA driver is there but CUDA does not start: {problem}</source>
        <translation>le pilote NVIDIA est présent mais CUDA ne démarre pas : {problem}</translation>
    </message>
    <message>
        <source>no CUDA device (the NVIDIA driver found no GPU)</source>
        <translation>aucun périphérique CUDA (le pilote NVIDIA n&apos;a trouvé aucun GPU)</translation>
    </message>
</context>
<context>
    <name>DevicesModel</name>
    <message>
        <source>the audio devices stopped responding</source>
        <translation>les périphériques audio ne répondent plus</translation>
    </message>
    <message>
        <source>the audio devices failed</source>
        <translation>les périphériques audio ont échoué</translation>
    </message>
    <message numerus="yes">
        <source>%n frames dropped · {xruns} xruns · {gaps} s output gaps</source>
        <translation>
            <numerusform>%n trame perdue · {xruns} xruns · {gaps} s de trous en sortie</numerusform>
            <numerusform>%n trames perdues · {xruns} xruns · {gaps} s de trous en sortie</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>DevicesPanel</name>
    <message>
        <source>System default</source>
        <translation>Par défaut du système</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>arrêté</translation>
    </message>
    <message>
        <source>starting</source>
        <translation>démarrage</translation>
    </message>
    <message>
        <source>lost</source>
        <translation>perdu</translation>
    </message>
    <message>
        <source>error</source>
        <translation>erreur</translation>
    </message>
    <message>
        <source>Audio: {input} ({input_rate} Hz) → {output} ({output_rate} Hz)</source>
        <translation>Audio : {input} ({input_rate} Hz) → {output} ({output_rate} Hz)</translation>
    </message>
    <message>
        <source>Audio: {input} → {output} (opened while a conversation runs)</source>
        <translation>Audio : {input} → {output} (ouvert pendant une conversation)</translation>
    </message>
    <message>
        <source>Audio: {state}</source>
        <translation>Audio : {state}</translation>
    </message>
    <message>
        <source>Refresh devices</source>
        <translation>Actualiser les périphériques</translation>
    </message>
    <message>
        <source>Look again for microphones and speakers (F5)</source>
        <translation>Chercher à nouveau micros et haut-parleurs (F5)</translation>
    </message>
    <message>
        <source>Microphone</source>
        <translation>Micro</translation>
    </message>
    <message>
        <source>Speaker</source>
        <translation>Haut-parleur</translation>
    </message>
    <message>
        <source>Audio: not started</source>
        <translation>Audio : non démarré</translation>
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
        <translation>Annulation d&apos;écho : désactivée</translation>
    </message>
    <message>
        <source>Echo suppression: waiting for the assistant to speak</source>
        <translation>Suppression d&apos;écho : en attente que l&apos;assistant parle</translation>
    </message>
    <message>
        <source>Echo suppression (ERLE, est.): {db} dB</source>
        <translation>Suppression d&apos;écho (ERLE, est.) : {db} dB</translation>
    </message>
    <message>
        <source> · echo {ms} ms behind the speaker</source>
        <translation> · écho {ms} ms après le haut-parleur</translation>
    </message>
    <message>
        <source>Mic, raw</source>
        <translation>Micro, brut</translation>
    </message>
    <message>
        <source>Mic, processed</source>
        <translation>Micro, traité</translation>
    </message>
    <message>
        <source>echo suppression</source>
        <translation>suppression d&apos;écho</translation>
    </message>
</context>
<context>
    <name>EngineTexts</name>
    <message>
        <source>(untrained, babbles)</source>
        <translation>(non entraîné, babille)</translation>
    </message>
    <message>
        <source>General assistant</source>
        <translation>Assistant général</translation>
    </message>
    <message>
        <source>Language partner</source>
        <translation>Partenaire de langue</translation>
    </message>
    <message>
        <source>Casual chat</source>
        <translation>Discussion détendue</translation>
    </message>
</context>
<context>
    <name>FileKindMenu</name>
    <message>
        <source>&amp;Automatic</source>
        <translation>&amp;Automatique</translation>
    </message>
    <message>
        <source>Compact for the 7B models, a full snapshot for small ones.</source>
        <translation>Compact pour les modèles 7B, instantané complet pour les petits.</translation>
    </message>
    <message>
        <source>&amp;Compact</source>
        <translation>&amp;Compact</translation>
    </message>
    <message>
        <source>About 2 MB a minute for any model; rebuilt (with a progress bar) when opened.</source>
        <translation>Environ 2 Mo par minute pour tout modèle ; reconstruit (avec une barre de progression) à l&apos;ouverture.</translation>
    </message>
    <message>
        <source>&amp;Full snapshot</source>
        <translation>&amp;Instantané complet</translation>
    </message>
    <message>
        <source>Opens instantly; a 7B conversation can take gigabytes.</source>
        <translation>S&apos;ouvre instantanément ; une conversation 7B peut occuper des gigaoctets.</translation>
    </message>
    <message>
        <source>Conversation fi&amp;les</source>
        <translation>&amp;Fichiers de conversation</translation>
    </message>
</context>
<context>
    <name>HealthModel</name>
    <message>
        <source>Model → Model manager</source>
        <translation>Modèle → Gestionnaire de modèles</translation>
    </message>
    <message>
        <source>Whether this computer computes each 80 ms of the assistant&apos;s speech in less than 80 ms. When it does not, replies come late and break up.</source>
        <translation>Indique si cet ordinateur calcule chaque tranche de 80 ms de parole de l&apos;assistant en moins de 80 ms. Sinon, les réponses arrivent en retard et sont hachées.</translation>
    </message>
    <message>
        <source>How long it takes from your mouth to the model and its answer to the speaker (estimated).</source>
        <translation>Le temps entre votre bouche, le modèle et sa réponse dans le haut-parleur (estimé).</translation>
    </message>
    <message>
        <source>How much more of the conversation the model can remember. When it is full, it forgets the oldest part and goes on.</source>
        <translation>Combien de la conversation le modèle peut encore retenir. Une fois plein, il oublie la partie la plus ancienne et continue.</translation>
    </message>
    <message>
        <source>Too slow for real time: replies come late and break up. To help, choose {precision} ({manager}), run it on the GPU ({manager}) or close other programs.</source>
        <translation>Trop lent pour le temps réel : les réponses arrivent en retard et sont hachées. Pour aider, choisissez {precision} ({manager}), exécutez-le sur le GPU ({manager}) ou fermez d&apos;autres programmes.</translation>
    </message>
    <message>
        <source>Too slow for real time: replies come late and break up. To help, choose {precision} ({manager}) or close other programs.</source>
        <translation>Trop lent pour le temps réel : les réponses arrivent en retard et sont hachées. Pour aider, choisissez {precision} ({manager}) ou fermez d&apos;autres programmes.</translation>
    </message>
    <message>
        <source>Too slow for real time: replies come late and break up. To help, run it on the GPU ({manager}) or close other programs.</source>
        <translation>Trop lent pour le temps réel : les réponses arrivent en retard et sont hachées. Pour aider, exécutez-le sur le GPU ({manager}) ou fermez d&apos;autres programmes.</translation>
    </message>
    <message>
        <source>Too slow for real time: replies come late and break up. To help, close other programs.</source>
        <translation>Trop lent pour le temps réel : les réponses arrivent en retard et sont hachées. Pour aider, fermez d&apos;autres programmes.</translation>
    </message>
    <message>
        <source>{first} or {second}</source>
        <translation>{first} ou {second}</translation>
    </message>
    <message>
        <source>full, remembers the last {duration}</source>
        <translation>plein, retient les dernières {duration}</translation>
    </message>
    <message>
        <source>{duration} left</source>
        <translation>{duration} restantes</translation>
    </message>
    <message>
        <source>falling behind</source>
        <translation>prend du retard</translation>
    </message>
    <message>
        <source>keeping up</source>
        <translation>suit le rythme</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} s</translation>
    </message>
    <message>
        <source>This computer takes {ms} ms to compute each {frame} ms of sound with the demo model.</source>
        <translation>Cet ordinateur met {ms} ms à calculer chaque tranche de {frame} ms de son avec le modèle de démonstration.</translation>
    </message>
    <message>
        <source>This computer takes {ms} ms to compute each {frame} ms of sound with {model}.</source>
        <translation>Cet ordinateur met {ms} ms à calculer chaque tranche de {frame} ms de son avec {model}.</translation>
    </message>
</context>
<context>
    <name>HistoryPlot</name>
    <message>
        <source>latency history</source>
        <translation>historique de latence</translation>
    </message>
</context>
<context>
    <name>Interpreter</name>
    <message>
        <source>The interpreter listens to the microphone while it runs.</source>
        <translation>L&apos;interprète écoute le microphone tant qu&apos;il tourne.</translation>
    </message>
    <message>
        <source>Listening to what this computer plays is not available here: {reason}.</source>
        <translation>Écouter ce que joue cet ordinateur n&apos;est pas possible ici : {reason}.</translation>
    </message>
    <message>
        <source>To follow a call or a video, choose &quot;What … plays&quot; as the input.</source>
        <translation>Pour suivre un appel ou une vidéo, choisissez « Ce que joue … » comme entrée.</translation>
    </message>
    <message>
        <source>Echo cancellation keeps it from hearing its own voice.</source>
        <translation>L&apos;annulation d&apos;écho l&apos;empêche d&apos;entendre sa propre voix.</translation>
    </message>
    <message>
        <source>Echo cancellation is off or unavailable: use headphones, or it will hear its own voice.</source>
        <translation>L&apos;annulation d&apos;écho est désactivée ou indisponible : utilisez un casque, sinon il entendra sa propre voix.</translation>
    </message>
    <message>
        <source>The interpreter listens to what {device} plays and speaks on another output: its own voice does not come back in.</source>
        <translation>L&apos;interprète écoute ce que joue {device} et parle sur une autre sortie : sa propre voix ne revient pas.</translation>
    </message>
    <message>
        <source>The interpreter listens to what {device} plays and speaks there too, so its own voice would come back in, and echo cancellation is unavailable ({problem}): choose another speaker, such as headphones.</source>
        <translation>L&apos;interprète écoute ce que joue {device} et y parle aussi, sa propre voix reviendrait donc, et l&apos;annulation d&apos;écho est indisponible ({problem}) : choisissez une autre sortie, un casque par exemple.</translation>
    </message>
    <message>
        <source>The interpreter listens to what {device} plays and speaks there too: echo cancellation against its own voice is always on here, so it does not hear itself.</source>
        <translation>L&apos;interprète écoute ce que joue {device} et y parle aussi : l&apos;annulation d&apos;écho de sa propre voix est alors toujours active, il ne s&apos;entend donc pas.</translation>
    </message>
    <message>
        <source>Listen to</source>
        <translation>Écouter</translation>
    </message>
    <message>
        <source>Interpreter mode: it speaks and writes in English what it hears · personas do not apply</source>
        <translation>Mode interprète : il dit et écrit en anglais ce qu&apos;il entend · les personas ne s&apos;appliquent pas</translation>
    </message>
    <message>
        <source>The interpreter listens all the time while it runs: Start and Pause control it.</source>
        <translation>L&apos;interprète écoute en permanence tant qu&apos;il tourne : Démarrer et Pause le commandent.</translation>
    </message>
    <message>
        <source>Press Start: the interpreter listens and speaks the English translation. Its English text appears here.</source>
        <translation>Appuyez sur Démarrer : l&apos;interprète écoute et dit la traduction anglaise. Son texte anglais s&apos;affiche ici.</translation>
    </message>
</context>
<context>
    <name>LanguageMenu</name>
    <message>
        <source>Lan&amp;guage</source>
        <translation>&amp;Langue</translation>
    </message>
    <message>
        <source>Applies the next time Parley starts.</source>
        <translation>S&apos;applique au prochain démarrage de Parley.</translation>
    </message>
    <message>
        <source>System ({language})</source>
        <translation>Système ({language})</translation>
    </message>
</context>
<context>
    <name>LevelMeter</name>
    <message>
        <source>{meter} level</source>
        <translation>niveau {meter}</translation>
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
        <translation>{meter}  silence</translation>
    </message>
</context>
<context>
    <name>Library</name>
    <message>
        <source>{file} cannot be read: {problem}</source>
        <translation>{file} est illisible : {problem}</translation>
    </message>
    <message>
        <source>{file} is a folder, not a conversation.</source>
        <translation>{file} est un dossier, pas une conversation.</translation>
    </message>
    <message>
        <source>{file} is not a regular file (a pipe or a device); it was not opened.</source>
        <translation>{file} n&apos;est pas un fichier ordinaire (un tube ou un périphérique) ; il n&apos;a pas été ouvert.</translation>
    </message>
    <message>
        <source>{file} is damaged ({problem}).</source>
        <translation>{file} est endommagé ({problem}).</translation>
    </message>
</context>
<context>
    <name>LibraryModel</name>
    <message>
        <source>{title} (open now)</source>
        <translation>{title} (ouverte)</translation>
    </message>
    <message>
        <source>{name} cannot be a file name.</source>
        <translation>{name} ne peut pas être un nom de fichier.</translation>
    </message>
    <message>
        <source>That name is too long (at most {count} bytes).</source>
        <translation>Ce nom est trop long ({count} octets au plus).</translation>
    </message>
    <message>
        <source>There is already a conversation called {name}.</source>
        <translation>Une conversation s&apos;appelle déjà {name}.</translation>
    </message>
    <message>
        <source>Could not rename {file}: {problem}</source>
        <translation>Impossible de renommer {file} : {problem}</translation>
    </message>
    <message>
        <source>Could not move {file} to the trash.</source>
        <translation>Impossible de mettre {file} à la corbeille.</translation>
    </message>
</context>
<context>
    <name>LibraryPanel</name>
    <message>
        <source>Unreadable: {problem}</source>
        <translation>Illisible : {problem}</translation>
    </message>
    <message>
        <source>unknown date</source>
        <translation>date inconnue</translation>
    </message>
    <message>
        <source>Open now · {details}</source>
        <translation>Ouverte · {details}</translation>
    </message>
    <message>
        <source>Conversations</source>
        <translation>Conversations</translation>
    </message>
    <message>
        <source>Search titles and transcripts</source>
        <translation>Chercher dans les titres et transcriptions</translation>
    </message>
    <message>
        <source>Search titles and transcripts (Ctrl+F)</source>
        <translation>Chercher dans les titres et transcriptions (Ctrl+F)</translation>
    </message>
    <message>
        <source>Search conversations</source>
        <translation>Chercher des conversations</translation>
    </message>
    <message>
        <source>saved conversations</source>
        <translation>conversations enregistrées</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>Ouvrir</translation>
    </message>
    <message>
        <source>Play</source>
        <translation>Écouter</translation>
    </message>
    <message>
        <source>Rename</source>
        <translation>Renommer</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Supprimer</translation>
    </message>
    <message>
        <source>Open the conversation selected in the library</source>
        <translation>Ouvrir la conversation sélectionnée dans la bibliothèque</translation>
    </message>
    <message>
        <source>Play the conversation selected in the library</source>
        <translation>Écouter la conversation sélectionnée dans la bibliothèque</translation>
    </message>
    <message>
        <source>Rename the conversation selected in the library</source>
        <translation>Renommer la conversation sélectionnée dans la bibliothèque</translation>
    </message>
    <message>
        <source>Delete the conversation selected in the library</source>
        <translation>Supprimer la conversation sélectionnée dans la bibliothèque</translation>
    </message>
    <message>
        <source>Reading the conversations folder...</source>
        <translation>Lecture du dossier des conversations...</translation>
    </message>
    <message>
        <source>No saved conversations yet. File → Save keeps one here.</source>
        <translation>Aucune conversation enregistrée. Fichier → Enregistrer en garde une ici.</translation>
    </message>
    <message>
        <source>Searching the transcripts for “{query}”...</source>
        <translation>Recherche de « {query} » dans les transcriptions...</translation>
    </message>
    <message>
        <source>No conversation matches “{query}”.</source>
        <translation>Aucune conversation ne correspond à « {query} ».</translation>
    </message>
    <message>
        <source>Rename conversation</source>
        <translation>Renommer la conversation</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>Nom :</translation>
    </message>
    <message>
        <source>{file} is no longer in the conversations folder.</source>
        <translation>{file} n&apos;est plus dans le dossier des conversations.</translation>
    </message>
    <message>
        <source>Delete conversation</source>
        <translation>Supprimer la conversation</translation>
    </message>
    <message>
        <source>Move “{title}” to the trash?</source>
        <translation>Mettre « {title} » à la corbeille ?</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Parley conversation (*.parley);;All files (*)</source>
        <translation>Conversation Parley (*.parley);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <source>Personas...</source>
        <translation>Personas...</translation>
    </message>
    <message>
        <source>Choose who the assistant is (a new conversation), or edit the personas.</source>
        <translation>Choisir qui est l&apos;assistant (une nouvelle conversation), ou modifier les personas.</translation>
    </message>
    <message>
        <source>Meters and devices</source>
        <translation>Mesures et périphériques</translation>
    </message>
    <message>
        <source>Crash protection stopped: {problem}. Parley keeps trying and resumes it once the disk has room; save the conversation to keep it.</source>
        <translation>Protection contre les plantages arrêtée : {problem}. Parley réessaie et la reprend dès que le disque a de la place ; enregistrez la conversation pour la garder.</translation>
    </message>
    <message>
        <source>No model loaded</source>
        <translation>Aucun modèle chargé</translation>
    </message>
    <message>
        <source>Load the previous model ({name}) again?</source>
        <translation>Recharger le modèle précédent ({name}) ?</translation>
    </message>
    <message>
        <source>Version {version}</source>
        <translation>Version {version}</translation>
    </message>
    <message>
        <source>Opening the conversation (rebuilding it from its file)...</source>
        <translation>Ouverture de la conversation (reconstruction à partir de son fichier)...</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Annuler</translation>
    </message>
    <message>
        <source>The language changes the next time Parley starts.</source>
        <translation>La langue change au prochain démarrage de Parley.</translation>
    </message>
    <message>
        <source>Open conversation</source>
        <translation>Ouvrir une conversation</translation>
    </message>
    <message>
        <source>“{title}” was saved with another copy of the model {model}, whose weights differ from the loaded one&apos;s (built or downloaded elsewhere), so Parley cannot continue it here.</source>
        <translation>« {title} » a été enregistrée avec une autre copie du modèle {model}, dont les poids diffèrent de ceux du modèle chargé (construite ou téléchargée ailleurs) : Parley ne peut pas la poursuivre ici.</translation>
    </message>
    <message>
        <source>“{title}” was saved with the model {model}, which is not on this machine (the loaded model is {loaded}). Parley does not fetch or load a model a file names: load that model yourself, then open the conversation again.</source>
        <translation>« {title} » a été enregistrée avec le modèle {model}, qui n&apos;est pas sur cette machine (le modèle chargé est {loaded}). Parley ne télécharge ni ne charge un modèle nommé par un fichier : chargez ce modèle vous-même, puis rouvrez la conversation.</translation>
    </message>
    <message>
        <source>Another model</source>
        <translation>Autre modèle</translation>
    </message>
    <message>
        <source>“{title}” was saved with the model {model}; the loaded model is {loaded}. Switch to {other} and open it?</source>
        <translation>« {title} » a été enregistrée avec le modèle {model} ; le modèle chargé est {loaded}. Passer à {other} et l&apos;ouvrir ?</translation>
    </message>
    <message>
        <source>{path} no longer exists.</source>
        <translation>{path} n&apos;existe plus.</translation>
    </message>
    <message>
        <source>Save conversation</source>
        <translation>Enregistrer la conversation</translation>
    </message>
    <message>
        <source>A conversation needs a name: type one, or keep the one proposed.</source>
        <translation>Une conversation a besoin d&apos;un nom : tapez-en un, ou gardez celui proposé.</translation>
    </message>
    <message>
        <source>Export transcript</source>
        <translation>Exporter la transcription</translation>
    </message>
    <message>
        <source>Export conversation audio</source>
        <translation>Exporter l&apos;audio de la conversation</translation>
    </message>
    <message>
        <source>WAV audio, left: you, right: assistant (*.wav)</source>
        <translation>Audio WAV, gauche : vous, droite : assistant (*.wav)</translation>
    </message>
    <message>
        <source>Unsaved conversation</source>
        <translation>Conversation non enregistrée</translation>
    </message>
    <message>
        <source>Save the current conversation before it is closed?</source>
        <translation>Enregistrer la conversation en cours avant de la fermer ?</translation>
    </message>
    <message>
        <source>Log file: {path}</source>
        <translation>Fichier journal : {path}</translation>
    </message>
    <message>
        <source>No log file: {problem}</source>
        <translation>Pas de fichier journal : {problem}</translation>
    </message>
    <message>
        <source>About Parley</source>
        <translation>À propos de Parley</translation>
    </message>
    <message>
        <source>Parley: a local, real-time, full-duplex voice assistant for the Moshi family of speech models.</source>
        <translation>Parley : un assistant vocal local, en temps réel et en duplex intégral pour la famille de modèles de parole Moshi.</translation>
    </message>
    <message>
        <source>Save conversation?</source>
        <translation>Enregistrer la conversation ?</translation>
    </message>
    <message>
        <source>Save the current conversation before quitting?</source>
        <translation>Enregistrer la conversation en cours avant de quitter ?</translation>
    </message>
</context>
<context>
    <name>MediaPause</name>
    <message>
        <source>Pausing other players uses MPRIS, which only Linux desktops have.</source>
        <translation>Mettre en pause les autres lecteurs passe par MPRIS, que seuls les bureaux Linux proposent.</translation>
    </message>
</context>
<context>
    <name>Menus</name>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Fichier</translation>
    </message>
    <message>
        <source>&amp;New conversation</source>
        <translation>&amp;Nouvelle conversation</translation>
    </message>
    <message>
        <source>&amp;End conversation</source>
        <translation>&amp;Terminer la conversation</translation>
    </message>
    <message>
        <source>End this conversation (you are asked to save what you said); a new one waits for Talk or Start.</source>
        <translation>Terminer cette conversation (il vous est proposé d&apos;enregistrer ce que vous avez dit) ; une nouvelle attend Parler ou Démarrer.</translation>
    </message>
    <message>
        <source>&amp;Open...</source>
        <translation>&amp;Ouvrir...</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>Ouvrir un fichier &amp;récent</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>&amp;Enregistrer</translation>
    </message>
    <message>
        <source>Save &amp;as...</source>
        <translation>Enregistrer &amp;sous...</translation>
    </message>
    <message>
        <source>Export &amp;transcript...</source>
        <translation>Exporter la trans&amp;cription...</translation>
    </message>
    <message>
        <source>Export a&amp;udio...</source>
        <translation>Exporter l&apos;a&amp;udio...</translation>
    </message>
    <message>
        <source>Open conversations &amp;folder</source>
        <translation>Ouvrir le &amp;dossier des conversations</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Quitter</translation>
    </message>
    <message>
        <source>&amp;Model</source>
        <translation>&amp;Modèle</translation>
    </message>
    <message>
        <source>&amp;Model manager...</source>
        <translation>&amp;Gestionnaire de modèles...</translation>
    </message>
    <message>
        <source>Your &amp;language model...</source>
        <translation>Votre modèle de &amp;langage...</translation>
    </message>
    <message>
        <source>Talk with a language model you run (Ollama, LM Studio, llama-server, vLLM) through a speech to text and a voice.</source>
        <translation>Parler avec un modèle de langage que vous faites tourner (Ollama, LM Studio, llama-server, vLLM), par une transcription et une voix.</translation>
    </message>
    <message>
        <source>&amp;Personas...</source>
        <translation>&amp;Personas...</translation>
    </message>
    <message>
        <source>Choose who the assistant is (a new conversation), or edit the personas.</source>
        <translation>Choisir qui est l&apos;assistant (une nouvelle conversation), ou modifier les personas.</translation>
    </message>
    <message>
        <source>&amp;Voices (record, import)...</source>
        <translation>&amp;Voix (enregistrer, importer)...</translation>
    </message>
    <message>
        <source>&amp;Wait for me to speak (this conversation)</source>
        <translation>&amp;Attendre que je parle (cette conversation)</translation>
    </message>
    <message>
        <source>The assistant stays silent until you press Talk or speak, in this conversation. A persona that always waits: Personas..., &quot;Wait for me to speak first&quot;.</source>
        <translation>L&apos;assistant reste silencieux jusqu&apos;à ce que vous appuyiez sur Parler ou parliez, dans cette conversation. Un persona qui attend toujours : Personas..., « Attendre que je parle en premier ».</translation>
    </message>
    <message>
        <source>&amp;Audio</source>
        <translation>A&amp;udio</translation>
    </message>
    <message>
        <source>&amp;Refresh devices</source>
        <translation>&amp;Actualiser les périphériques</translation>
    </message>
    <message>
        <source>&amp;Talk key...</source>
        <translation>&amp;Touche pour parler...</translation>
    </message>
    <message>
        <source>&amp;Pause other players while talking</source>
        <translation>&amp;Mettre en pause les autres lecteurs pendant la parole</translation>
    </message>
    <message>
        <source>Music and videos pause while you hold Talk or the assistant speaks, and go on afterwards.</source>
        <translation>La musique et les vidéos se mettent en pause pendant que vous maintenez Parler ou que l&apos;assistant parle, puis reprennent.</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Affichage</translation>
    </message>
    <message>
        <source>&amp;Library</source>
        <translation>&amp;Bibliothèque</translation>
    </message>
    <message>
        <source>&amp;Meters and latency</source>
        <translation>&amp;Mesures et latence</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>Ai&amp;de</translation>
    </message>
    <message>
        <source>Open &amp;log folder</source>
        <translation>Ouvrir le dossier du &amp;journal</translation>
    </message>
    <message>
        <source>&amp;About Parley</source>
        <translation>À &amp;propos de Parley</translation>
    </message>
    <message>
        <source>&amp;Captions of what you say</source>
        <translation>&amp;Sous-titres de ce que vous dites</translation>
    </message>
    <message>
        <source>Your words appear in your turns as you speak (caption model: {model}), are saved with the conversation and found by the library&apos;s search.</source>
        <translation>Vos mots apparaissent dans vos tours de parole pendant que vous parlez (modèle de sous-titres : {model}), sont enregistrés avec la conversation et trouvés par la recherche de la bibliothèque.</translation>
    </message>
</context>
<context>
    <name>MetersPanel</name>
    <message>
        <source>Input queue</source>
        <translation>File d&apos;entrée</translation>
    </message>
    <message>
        <source>Sound from the microphone waiting for the model.</source>
        <translation>Le son du micro qui attend le modèle.</translation>
    </message>
    <message>
        <source>Encode</source>
        <translation>Encodage</translation>
    </message>
    <message>
        <source>Turning the microphone&apos;s sound into the model&apos;s tokens.</source>
        <translation>Transformation du son du micro en jetons du modèle.</translation>
    </message>
    <message>
        <source>LM</source>
        <translation>LM</translation>
    </message>
    <message>
        <source>The language model choosing what to say next.</source>
        <translation>Le modèle de langage qui choisit la suite.</translation>
    </message>
    <message>
        <source>Depth</source>
        <translation>Profondeur</translation>
    </message>
    <message>
        <source>The model choosing the details of its next piece of sound.</source>
        <translation>Le modèle qui choisit les détails de son prochain morceau de son.</translation>
    </message>
    <message>
        <source>Decode</source>
        <translation>Décodage</translation>
    </message>
    <message>
        <source>Turning the model&apos;s tokens into sound.</source>
        <translation>Transformation des jetons du modèle en son.</translation>
    </message>
    <message>
        <source>Output queue</source>
        <translation>File de sortie</translation>
    </message>
    <message>
        <source>The assistant&apos;s sound waiting for the speaker.</source>
        <translation>Le son de l&apos;assistant qui attend le haut-parleur.</translation>
    </message>
    <message>
        <source>Health</source>
        <translation>Santé</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>Vitesse</translation>
    </message>
    <message>
        <source>Delay</source>
        <translation>Délai</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>Mémoire</translation>
    </message>
    <message>
        <source>Levels</source>
        <translation>Niveaux</translation>
    </message>
    <message>
        <source>Mic</source>
        <translation>Micro</translation>
    </message>
    <message>
        <source>How loud the microphone is.</source>
        <translation>Le volume du micro.</translation>
    </message>
    <message>
        <source>Model hears</source>
        <translation>Le modèle entend</translation>
    </message>
    <message>
        <source>What the model hears: silent while you do not hold Talk (open mic off).</source>
        <translation>Ce que le modèle entend : silence tant que vous ne maintenez pas Parler (micro ouvert désactivé).</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>Assistant</translation>
    </message>
    <message>
        <source>How loud the assistant speaks.</source>
        <translation>Le volume de la voix de l&apos;assistant.</translation>
    </message>
    <message>
        <source>Advanced</source>
        <translation>Avancé</translation>
    </message>
    <message>
        <source>Show the figures for developers: time per stage, compute history, memory use, echo suppression, dropped sound.</source>
        <translation>Afficher les chiffres pour développeurs : temps par étape, historique de calcul, mémoire, suppression d&apos;écho, son perdu.</translation>
    </message>
    <message>
        <source>Microphone processing</source>
        <translation>Traitement du micro</translation>
    </message>
    <message>
        <source>The microphone before and after echo cancellation, and how much of the assistant&apos;s voice it removes (ERLE: more dB is better).</source>
        <translation>Le micro avant et après l&apos;annulation d&apos;écho, et quelle part de la voix de l&apos;assistant elle retire (ERLE : plus de dB, c&apos;est mieux).</translation>
    </message>
    <message>
        <source>Time per frame (ms)</source>
        <translation>Temps par trame (ms)</translation>
    </message>
    <message>
        <source>Mic to speaker (est.)</source>
        <translation>Micro vers haut-parleur (est.)</translation>
    </message>
    <message>
        <source>Real-time factor</source>
        <translation>Facteur temps réel</translation>
    </message>
    <message>
        <source>Compute time over sound time: below 1 keeps up with real time.</source>
        <translation>Temps de calcul sur durée du son : sous 1, on suit le temps réel.</translation>
    </message>
    <message>
        <source>Engine thread</source>
        <translation>Fil du moteur</translation>
    </message>
    <message>
        <source>The engine thread&apos;s time around a frame: its CPU time in the model&apos;s step, the step&apos;s time waiting (for the Python lock, a core, torch&apos;s other threads), the crash journal and transcript, the microphone&apos;s processing, the reply&apos;s output.</source>
        <translation>Le temps du fil du moteur autour d&apos;une trame : son temps processeur dans l&apos;étape du modèle, le temps d&apos;attente de l&apos;étape (verrou Python, un cœur, les autres fils de torch), le journal de plantage et la transcription, le traitement du micro, la sortie de la réponse.</translation>
    </message>
    <message>
        <source>GUI thread</source>
        <translation>Fil de l&apos;interface</translation>
    </message>
    <message>
        <source>CPU time the window spent between two frames: it takes cores and the Python lock from the engine.</source>
        <translation>Temps processeur passé par la fenêtre entre deux trames : il prend des cœurs et le verrou Python au moteur.</translation>
    </message>
    <message>
        <source>{ms} ms budget</source>
        <translation>budget de {ms} ms</translation>
    </message>
    <message>
        <source>Compute time of each frame: below the {ms} ms line the computer keeps up.</source>
        <translation>Temps de calcul de chaque trame : sous la ligne des {ms} ms, l&apos;ordinateur suit le rythme.</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>Moteur</translation>
    </message>
    <message>
        <source>0 frames dropped · 0 xruns</source>
        <translation>0 trame perdue · 0 xrun</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>Cache KV</translation>
    </message>
    <message>
        <source>The model&apos;s memory of the conversation: places used of its size, how often it filled up and started over (wraps), and its size in memory.</source>
        <translation>La mémoire de la conversation du modèle : places utilisées sur sa taille, combien de fois il s&apos;est rempli et a recommencé (tours), et sa taille en mémoire.</translation>
    </message>
    <message>
        <source>Drops</source>
        <translation>Pertes</translation>
    </message>
    <message>
        <source>Frames dropped: input skipped because the model fell behind real time. Xruns: the sound card&apos;s buffers ran over or under. Output gaps: silence played while the model had no reply ready.</source>
        <translation>Trames perdues : entrée sautée parce que le modèle a pris du retard sur le temps réel. Xruns : les tampons de la carte son ont débordé ou se sont vidés. Trous en sortie : silence joué faute de réponse prête.</translation>
    </message>
    <message>
        <source>{ms} ms</source>
        <translation>{ms} ms</translation>
    </message>
    <message>
        <source>CPU {cpu} · waiting {waiting} · journal {journal} · input {input} · output {output}</source>
        <translation>CPU {cpu} · attente {waiting} · journal {journal} · entrée {input} · sortie {output}</translation>
    </message>
    <message>
        <source>CPU {cpu}</source>
        <translation>CPU {cpu}</translation>
    </message>
    <message numerus="yes">
        <source>{name}: {used}/{capacity} · %n wrap(s) · {size} MiB</source>
        <translation>
            <numerusform>{name} : {used}/{capacity} · %n tour · {size} Mio</numerusform>
            <numerusform>{name} : {used}/{capacity} · %n tours · {size} Mio</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>MicrophoneBanner</name>
    <message>
        <source>Choose microphone...</source>
        <translation>Choisir un micro...</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>Réessayer</translation>
    </message>
    <message>
        <source>Look for audio devices again (one plugged in since Parley started).</source>
        <translation>Chercher à nouveau les périphériques audio (un branché depuis le démarrage de Parley).</translation>
    </message>
    <message>
        <source>No microphone: Parley cannot hear you, so Talk is off. {problem}</source>
        <translation>Pas de micro : Parley ne peut pas vous entendre, Parler est donc désactivé. {problem}</translation>
    </message>
</context>
<context>
    <name>ModelManager</name>
    <message>
        <source>Model</source>
        <translation>Modèle</translation>
    </message>
    <message>
        <source>About</source>
        <translation>Description</translation>
    </message>
    <message>
        <source>Here</source>
        <translation>Ici</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>Taille</translation>
    </message>
    <message>
        <source>On this machine</source>
        <translation>Sur cette machine</translation>
    </message>
    <message>
        <source>With captions</source>
        <translation>Avec sous-titres</translation>
    </message>
    <message>
        <source>Licence</source>
        <translation>Licence</translation>
    </message>
    <message>
        <source>Parley&apos;s CUDA variant</source>
        <translation>la variante CUDA de Parley</translation>
    </message>
    <message>
        <source>runs here</source>
        <translation>fonctionne ici</translation>
    </message>
    <message>
        <source>fits this GPU</source>
        <translation>tient sur ce GPU</translation>
    </message>
    <message>
        <source>This computer has no GPU these models can use ({reason}); here they would not run in real time.</source>
        <translation>Cet ordinateur n&apos;a pas de GPU utilisable par ces modèles ({reason}) ; ici ils ne tourneraient pas en temps réel.</translation>
    </message>
    <message>
        <source>This computer&apos;s GPU: {name}, {gb} GB.</source>
        <translation>GPU de cet ordinateur : {name}, {gb} Go.</translation>
    </message>
    <message>
        <source>needs an NVIDIA GPU (its memory need is known once downloaded)</source>
        <translation>nécessite un GPU NVIDIA (la mémoire qu&apos;il lui faut sera connue une fois téléchargé)</translation>
    </message>
    <message>
        <source>needs an NVIDIA GPU with {gb} GB and {variant}</source>
        <translation>nécessite un GPU NVIDIA de {gb} Go et {variant}</translation>
    </message>
    <message>
        <source>needs an NVIDIA GPU with {gb} GB</source>
        <translation>nécessite un GPU NVIDIA de {gb} Go</translation>
    </message>
    <message>
        <source>too big for this GPU: needs {gb} GB</source>
        <translation>trop grand pour ce GPU : nécessite {gb} Go</translation>
    </message>
    <message>
        <source>Precision auto here: {name} does not fit in the {gpu}&apos;s memory ({free} GB free of {total} GB), even in int4.</source>
        <translation>Précision auto ici : {name} ne tient pas dans la mémoire du {gpu} ({free} Go libres sur {total} Go), même en int4.</translation>
    </message>
    <message>
        <source>Precision auto here: {name} does not fit: in int8 it needs about {gb} GB, and the {gpu} has {free} GB free. In int4 (experimental: it can lower the model&apos;s quality) it needs about {lightest} GB: choose int4 below.</source>
        <translation>Précision auto ici : {name} ne tient pas : en int8 il nécessite environ {gb} Go, et le {gpu} a {free} Go libres. En int4 (expérimental : la qualité du modèle peut baisser) il nécessite environ {lightest} Go : choisissez int4 ci-dessous.</translation>
    </message>
    <message>
        <source>Precision auto here: {precision}: {name} needs about {gb} GB in {precision}, and the {gpu} has {free} GB free.</source>
        <translation>Précision auto ici : {precision} : {name} nécessite environ {gb} Go en {precision}, et le {gpu} a {free} Go libres.</translation>
    </message>
    <message>
        <source>bfloat16 would need about {gb} GB.</source>
        <translation>bfloat16 nécessiterait environ {gb} Go.</translation>
    </message>
    <message>
        <source>This GPU has no native bfloat16, which it emulates: the frame may not run in real time.</source>
        <translation>Ce GPU n&apos;a pas de bfloat16 natif, qu&apos;il émule : la trame peut ne pas tourner en temps réel.</translation>
    </message>
    <message>
        <source>Parley was not tested with a particular commit of {repo}: it will keep to the commit of its first download here.</source>
        <translation>Parley n&apos;a pas été testé avec un commit particulier de {repo} : il s&apos;en tiendra au commit de son premier téléchargement ici.</translation>
    </message>
    <message>
        <source>Revision {revision} of {repo} (the one Parley was tested with).</source>
        <translation>Révision {revision} de {repo} (celle avec laquelle Parley a été testé).</translation>
    </message>
    <message>
        <source>Revision {revision} of {repo} (the one first downloaded here).</source>
        <translation>Révision {revision} de {repo} (celle téléchargée ici en premier).</translation>
    </message>
    <message>
        <source>Revision {revision} of {repo} (chosen here by an update).</source>
        <translation>Révision {revision} de {repo} (choisie ici par une mise à jour).</translation>
    </message>
    <message>
        <source>Revision {revision} is offered: &apos;Update to {revision}&apos; switches to it.</source>
        <translation>La révision {revision} est proposée : « Mettre à jour vers {revision} » y passe.</translation>
    </message>
    <message>
        <source>known once downloaded</source>
        <translation>connu une fois téléchargé</translation>
    </message>
    <message>
        <source>{captions}: runs here</source>
        <translation>{captions} : fonctionne ici</translation>
    </message>
    <message>
        <source>{captions}: does not fit in this computer&apos;s memory</source>
        <translation>{captions} : ne tient pas dans la mémoire de cet ordinateur</translation>
    </message>
    <message>
        <source>{captions}: needs an NVIDIA GPU with {gb} GB</source>
        <translation>{captions} : nécessite un GPU NVIDIA de {gb} Go</translation>
    </message>
    <message>
        <source>{captions}: does not fit beside it on this {total} GB GPU (the pair needs {gb} GB)</source>
        <translation>{captions} : ne tient pas à côté sur ce GPU de {total} Go (les deux modèles nécessitent {gb} Go)</translation>
    </message>
    <message>
        <source>{captions}: fits in {precision} ({gb} GB)</source>
        <translation>{captions} : tient en {precision} ({gb} Go)</translation>
    </message>
    <message>
        <source>A voice model reads text aloud; this one needs an NVIDIA GPU.</source>
        <translation>Un modèle de voix lit du texte à voix haute ; celui-ci demande un GPU NVIDIA.</translation>
    </message>
    <message>
        <source>A voice model reads the conversation&apos;s turns aloud (a turn&apos;s menu: Read aloud); this one runs on any CPU, no GPU needed. Parley downloads it with its shipped voices from the ungated {plain}; a voice made from your own recording needs the gated {cloning} (accept its terms on Hugging Face), which Parley uses once it is in the cache.</source>
        <translation>Un modèle de voix lit à voix haute les tours de la conversation (menu d&apos;un tour : Lire à voix haute) ; celui-ci fonctionne sur n&apos;importe quel processeur, sans GPU. Parley le télécharge avec ses voix fournies depuis {plain}, en accès libre ; une voix faite à partir de votre propre enregistrement demande {cloning}, à accès restreint (acceptez ses conditions sur Hugging Face), que Parley utilise dès qu&apos;il est dans le cache.</translation>
    </message>
    <message>
        <source>Remove {name} from this computer? Its files in {folder} are deleted; you can download it again later.</source>
        <translation>Supprimer {name} de cet ordinateur ? Ses fichiers dans {folder} sont effacés ; vous pourrez le télécharger de nouveau plus tard.</translation>
    </message>
</context>
<context>
    <name>ModelManagerDialog</name>
    <message>
        <source>Models</source>
        <translation>Modèles</translation>
    </message>
    <message>
        <source>Cancel download</source>
        <translation>Annuler le téléchargement</translation>
    </message>
    <message>
        <source>auto: the heaviest precision that fits in the GPU&apos;s free memory (bfloat16, else int8); int4 is experimental: it fits an 8 GB card but can lower the model&apos;s quality</source>
        <translation>auto : la précision la plus lourde qui tient dans la mémoire libre du GPU (bfloat16, sinon int8) ; int4 est expérimental : il tient sur une carte de 8 Go mais peut réduire la qualité du modèle</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Appareil</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>Précision</translation>
    </message>
    <message>
        <source>Open models folder</source>
        <translation>Ouvrir le dossier des modèles</translation>
    </message>
    <message>
        <source>Download</source>
        <translation>Télécharger</translation>
    </message>
    <message>
        <source>Check for update</source>
        <translation>Chercher une mise à jour</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Supprimer</translation>
    </message>
    <message>
        <source>Delete this voice model&apos;s files from this computer</source>
        <translation>Effacer les fichiers de ce modèle de voix de cet ordinateur</translation>
    </message>
    <message>
        <source>Use this model</source>
        <translation>Utiliser ce modèle</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>Fermer</translation>
    </message>
    <message>
        <source>Your language model...</source>
        <translation>Votre modèle de langage...</translation>
    </message>
    <message>
        <source>not downloaded</source>
        <translation>non téléchargé</translation>
    </message>
    <message numerus="yes">
        <source>partly downloaded (%n files missing)</source>
        <translation>
            <numerusform>partiellement téléchargé (%n fichier manquant)</numerusform>
            <numerusform>partiellement téléchargé (%n fichiers manquants)</numerusform>
        </translation>
    </message>
    <message>
        <source>unknown: {problem}</source>
        <translation>inconnu : {problem}</translation>
    </message>
    <message>
        <source>built on first use (about a minute)</source>
        <translation>construit à la première utilisation (environ une minute)</translation>
    </message>
    <message>
        <source>in use · {badge}</source>
        <translation>utilisé · {badge}</translation>
    </message>
    <message>
        <source>{gb} GB</source>
        <translation>{gb} Go</translation>
    </message>
    <message>
        <source>With captions: {each}.</source>
        <translation>Avec sous-titres : {each}.</translation>
    </message>
    <message>
        <source>A caption model writes what the person says: it runs beside a conversation model, and is not one to talk to.</source>
        <translation>Un modèle de sous-titres écrit ce que dit la personne : il tourne à côté d&apos;un modèle de conversation, et l&apos;on ne parle pas avec lui.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Non-commercial use only&lt;/b&gt; ({licence}).</source>
        <translation>&lt;b&gt;Usage non commercial uniquement&lt;/b&gt; ({licence}).</translation>
    </message>
    <message>
        <source>&lt;b&gt;Licence:&lt;/b&gt; {licence}. This model is gated: open &lt;a href=&apos;{page}&apos;&gt;{page}&lt;/a&gt;, accept the terms while logged in, then set HF_TOKEN (or run &lt;code&gt;hf auth login&lt;/code&gt;) before downloading.</source>
        <translation>&lt;b&gt;Licence :&lt;/b&gt; {licence}. Ce modèle est protégé : ouvrez &lt;a href=&apos;{page}&apos;&gt;{page}&lt;/a&gt;, acceptez les conditions en étant connecté, puis définissez HF_TOKEN (ou lancez &lt;code&gt;hf auth login&lt;/code&gt;) avant de télécharger.</translation>
    </message>
    <message>
        <source>Source: &lt;a href=&apos;{page}&apos;&gt;{page}&lt;/a&gt; · licence {licence}</source>
        <translation>Source : &lt;a href=&apos;{page}&apos;&gt;{page}&lt;/a&gt; · licence {licence}</translation>
    </message>
    <message>
        <source>Update to {revision}</source>
        <translation>Mettre à jour vers {revision}</translation>
    </message>
    <message>
        <source>Downloading {name}...</source>
        <translation>Téléchargement de {name}...</translation>
    </message>
    <message>
        <source>{name} is about {gb} GB. The disk that holds {folder} has {free} GB free.</source>
        <translation>{name} fait environ {gb} Go. Le disque qui contient {folder} a {free} Go libres.</translation>
    </message>
    <message>
        <source>That is not enough: free some space first.</source>
        <translation>Ce n&apos;est pas assez : libérez d&apos;abord de l&apos;espace.</translation>
    </message>
    <message>
        <source>It {badge}: on this computer it would not run in real time.</source>
        <translation>Il {badge} : sur cet ordinateur, il ne tournerait pas en temps réel.</translation>
    </message>
    <message>
        <source>Download {name}?</source>
        <translation>Télécharger {name} ?</translation>
    </message>
    <message>
        <source>Remove {name}?</source>
        <translation>Supprimer {name} ?</translation>
    </message>
    <message numerus="yes">
        <source>Removed {name} (%n files).</source>
        <translation>
            <numerusform>{name} supprimé (%n fichier).</numerusform>
            <numerusform>{name} supprimé (%n fichiers).</numerusform>
        </translation>
    </message>
    <message>
        <source>{name} could not be removed: {problem}</source>
        <translation>{name} n&apos;a pas pu être supprimé : {problem}</translation>
    </message>
    <message>
        <source>Asking the hub about {name}...</source>
        <translation>Interrogation du hub au sujet de {name}...</translation>
    </message>
    <message>
        <source>Updating {name} to {revision}...</source>
        <translation>Mise à jour de {name} vers {revision}...</translation>
    </message>
    <message>
        <source>Download cancelled; completed files are kept, the rest restarts next time.</source>
        <translation>Téléchargement annulé ; les fichiers terminés sont gardés, le reste reprendra la prochaine fois.</translation>
    </message>
    <message>
        <source>{what} {done} / {total} GB</source>
        <translation>{what} {done} / {total} Go</translation>
    </message>
    <message>
        <source>Downloaded to {folder}</source>
        <translation>Téléchargé dans {folder}</translation>
    </message>
    <message>
        <source>Checking for an update failed: {problem}</source>
        <translation>La recherche de mise à jour a échoué : {problem}</translation>
    </message>
    <message>
        <source>Download failed: {problem}</source>
        <translation>Le téléchargement a échoué : {problem}</translation>
    </message>
    <message>
        <source>{name} is up to date: the hub&apos;s main is at {revision}, the revision in use.</source>
        <translation>{name} est à jour : la branche main du hub est à {revision}, la révision utilisée.</translation>
    </message>
    <message>
        <source>The hub has another revision of {name}: {revision} (in use: {in_use}). &apos;Update to {revision}&apos; downloads it (files that did not change are not downloaded again); until then nothing changes.</source>
        <translation>Le hub a une autre révision de {name} : {revision} (utilisée : {in_use}). « Mettre à jour vers {revision} » la télécharge (les fichiers inchangés ne sont pas retéléchargés) ; d&apos;ici là, rien ne change.</translation>
    </message>
    <message>
        <source>none yet</source>
        <translation>aucune pour l&apos;instant</translation>
    </message>
</context>
<context>
    <name>ModelTexts</name>
    <message>
        <source>{name} {untrained}: a tiny random-weight model built on this machine</source>
        <translation>{name} {untrained} : un tout petit modèle à poids aléatoires construit sur cet ordinateur</translation>
    </message>
    <message>
        <source>exercises the whole pipeline</source>
        <translation>fait tourner toute la chaîne</translation>
    </message>
    <message>
        <source>Moshi with a male voice (kyutai), bf16 weights</source>
        <translation>Moshi avec une voix d&apos;homme (kyutai), poids bf16</translation>
    </message>
    <message>
        <source>Moshi with a female voice (kyutai), bf16 weights</source>
        <translation>Moshi avec une voix de femme (kyutai), poids bf16</translation>
    </message>
    <message>
        <source>Moshi with a female voice, RL-aligned by kyutai for better turn-taking (pauses, backchannels, interruptions)</source>
        <translation>Moshi avec une voix de femme, aligné par RL par kyutai pour mieux prendre la parole à son tour (pauses, acquiescements, interruptions)</translation>
    </message>
    <message>
        <source>PersonaPlex-7B (NVIDIA): choose a voice and a text role prompt</source>
        <translation>PersonaPlex-7B (NVIDIA) : choisissez une voix et un rôle écrit</translation>
    </message>
    <message>
        <source>PersonaPlex-7B RL-aligned by kyutai for better turn-taking (pauses, backchannels, interruptions)</source>
        <translation>PersonaPlex-7B aligné par RL par kyutai pour mieux prendre la parole à son tour (pauses, acquiescements, interruptions)</translation>
    </message>
    <message>
        <source>choose a voice and a text role prompt</source>
        <translation>choisissez une voix et un rôle écrit</translation>
    </message>
    <message>
        <source>Hibiki-Zero 3B (kyutai): live interpreter, French, Spanish, Portuguese or German speech in, English speech and text out</source>
        <translation>Hibiki-Zero 3B (kyutai) : interprète en direct, parole en français, espagnol, portugais ou allemand en entrée, parole et texte en anglais en sortie</translation>
    </message>
    <message>
        <source>Hibiki 2B (kyutai): live interpreter, French speech in, English speech and text out</source>
        <translation>Hibiki 2B (kyutai) : interprète en direct, parole en français en entrée, parole et texte en anglais en sortie</translation>
    </message>
    <message>
        <source>Hibiki-M 1B (kyutai): live interpreter, French speech in, English speech and text out</source>
        <translation>Hibiki-M 1B (kyutai) : interprète en direct, parole en français en entrée, parole et texte en anglais en sortie</translation>
    </message>
    <message>
        <source>8 codebooks per stream</source>
        <translation>8 dictionnaires de codes par flux</translation>
    </message>
    <message>
        <source>{name} {untrained}: a tiny random-weight model in Hibiki-Zero&apos;s layout built on this machine; it translates nothing</source>
        <translation>{name} {untrained} : un tout petit modèle à poids aléatoires, agencé comme Hibiki-Zero, construit sur cet ordinateur ; il ne traduit rien</translation>
    </message>
    <message>
        <source>exercises the interpreter path</source>
        <translation>fait tourner le chemin de l&apos;interprète</translation>
    </message>
    <message>
        <source>{name} {untrained}: a tiny random-weight model in Kyutai STT 1B&apos;s layout built on this machine</source>
        <translation>{name} {untrained} : un tout petit modèle à poids aléatoires, agencé comme Kyutai STT 1B, construit sur cet ordinateur</translation>
    </message>
    <message>
        <source>exercises the captioning path</source>
        <translation>fait tourner le chemin des sous-titres</translation>
    </message>
    <message>
        <source>Kyutai STT 1B: English and French speech to text, 0.5 s behind the words</source>
        <translation>Kyutai STT 1B : transcription de la parole en anglais et en français, 0,5 s après les mots</translation>
    </message>
    <message>
        <source>with voice-activity heads</source>
        <translation>avec des têtes de détection de la voix</translation>
    </message>
    <message>
        <source>Kyutai STT 2.6B: English speech to text, 2.5 s behind the words</source>
        <translation>Kyutai STT 2.6B : transcription de la parole en anglais, 2,5 s après les mots</translation>
    </message>
    <message>
        <source>Kyutai TTS 1.6B: English and French text to speech, word by word as the text arrives, with kyutai&apos;s voices</source>
        <translation>Kyutai TTS 1.6B : synthèse vocale en anglais et en français, mot à mot à mesure que le texte arrive, avec les voix de kyutai</translation>
    </message>
    <message>
        <source>in English</source>
        <translation>en anglais</translation>
    </message>
    <message>
        <source>in French</source>
        <translation>en français</translation>
    </message>
    <message>
        <source>in German</source>
        <translation>en allemand</translation>
    </message>
    <message>
        <source>in Portuguese</source>
        <translation>en portugais</translation>
    </message>
    <message>
        <source>in Italian</source>
        <translation>en italien</translation>
    </message>
    <message>
        <source>in Spanish</source>
        <translation>en espagnol</translation>
    </message>
    <message>
        <source>in Dutch</source>
        <translation>en néerlandais</translation>
    </message>
    <message>
        <source>Pocket TTS {language}, {layers} layers: text to speech with its shipped voices</source>
        <translation>Pocket TTS {language}, {layers} couches : synthèse vocale avec ses voix fournies</translation>
    </message>
    <message>
        <source>needs an NVIDIA GPU: precision auto loads bfloat16 where it fits in the GPU&apos;s free memory, else int8 weights (int4 is experimental and opt-in)</source>
        <translation>nécessite un GPU NVIDIA : la précision auto charge bfloat16 s&apos;il tient dans la mémoire libre du GPU, sinon des poids int8 (int4 est expérimental et sur demande)</translation>
    </message>
    <message>
        <source>runs on an NVIDIA GPU or, slowly, on the CPU</source>
        <translation>tourne sur un GPU NVIDIA ou, lentement, sur le processeur</translation>
    </message>
    <message>
        <source>runs on the CPU in real time</source>
        <translation>tourne sur le processeur en temps réel</translation>
    </message>
    <message>
        <source>{first}; {then}</source>
        <translation>{first} ; {then}</translation>
    </message>
    <message>
        <source>{gb} GB in {precision}</source>
        <translation>{gb} Go en {precision}</translation>
    </message>
    <message>
        <source>GPU memory in use, as measured on an {gpu} after live frames: {each}.</source>
        <translation>Mémoire GPU utilisée, mesurée sur un {gpu} après des trames en direct : {each}.</translation>
    </message>
    <message>
        <source>Licence: {licence}.</source>
        <translation>Licence : {licence}.</translation>
    </message>
    <message>
        <source>Non-commercial use only: not for work you are paid for or a product you sell.</source>
        <translation>Usage non commercial uniquement : ni pour un travail rémunéré ni pour un produit que vous vendez.</translation>
    </message>
    <message>
        <source>Gated: accept its terms on Hugging Face (logged in) and give Parley your access token before downloading.</source>
        <translation>Protégé : acceptez ses conditions sur Hugging Face (en étant connecté) et donnez à Parley votre jeton d&apos;accès avant de télécharger.</translation>
    </message>
    <message>
        <source>non-commercial</source>
        <translation>non commercial</translation>
    </message>
    <message>
        <source>gated: accept on Hugging Face</source>
        <translation>protégé : à accepter sur Hugging Face</translation>
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
        <translation>lecture des poids et choix des noyaux les plus rapides pour cet ordinateur...</translation>
    </message>
    <message>
        <source>on</source>
        <translation>activé</translation>
    </message>
    <message>
        <source>warming up</source>
        <translation>en préparation</translation>
    </message>
    <message>
        <source>off</source>
        <translation>désactivé</translation>
    </message>
    <message>
        <source>Loading model {name}: {stage}</source>
        <translation>Chargement du modèle {name} : {stage}</translation>
    </message>
    <message>
        <source>No model loaded (Model → Model manager...)</source>
        <translation>Aucun modèle chargé (Modèle → Gestionnaire de modèles...)</translation>
    </message>
    <message>
        <source> · CUDA graph: {state}</source>
        <translation> · graphe CUDA : {state}</translation>
    </message>
    <message>
        <source>Model: {label} · {device} · {precision}</source>
        <translation>Modèle : {label} · {device} · {precision}</translation>
    </message>
    <message>
        <source>Persona: none (a conversation saved before personas)</source>
        <translation>Persona : aucun (conversation enregistrée avant les personas)</translation>
    </message>
    <message>
        <source>Persona: {name} · waits for you to speak first · this model takes no voice or role</source>
        <translation>Persona : {name} · attend que vous parliez en premier · ce modèle ne prend ni voix ni rôle</translation>
    </message>
    <message>
        <source>Persona: {name} · this model takes no voice or role</source>
        <translation>Persona : {name} · ce modèle ne prend ni voix ni rôle</translation>
    </message>
    <message>
        <source>Persona: {name} · voice: {voice} · role: {role}</source>
        <translation>Persona : {name} · voix : {voice} · rôle : {role}</translation>
    </message>
    <message>
        <source>Voice: {voice}</source>
        <translation>Voix : {voice}</translation>
    </message>
    <message>
        <source>none</source>
        <translation>aucune</translation>
    </message>
</context>
<context>
    <name>Notices</name>
    <message>
        <source>The conversation is back in Parley&apos;s window; save it to keep it.</source>
        <translation>La conversation est de retour dans la fenêtre de Parley ; enregistrez-la pour la garder.</translation>
    </message>
    <message>
        <source>Parley: conversation recovered</source>
        <translation>Parley : conversation récupérée</translation>
    </message>
    <message>
        <source>Parley: recovery stopped</source>
        <translation>Parley : récupération arrêtée</translation>
    </message>
    <message>
        <source>Parley: model download</source>
        <translation>Parley : téléchargement du modèle</translation>
    </message>
</context>
<context>
    <name>OpenMic</name>
    <message>
        <source>Open mic is on, with echo cancellation: speakers work; headphones still sound cleanest.</source>
        <translation>Micro ouvert, avec annulation d&apos;écho : les haut-parleurs fonctionnent ; un casque reste le plus net.</translation>
    </message>
    <message>
        <source>Open mic is on and echo cancellation is unavailable: use headphones, or the assistant will hear itself.</source>
        <translation>Micro ouvert et annulation d&apos;écho indisponible : utilisez un casque, sinon l&apos;assistant s&apos;entendra lui-même.</translation>
    </message>
    <message>
        <source>Open mic is on and echo cancellation is off (Audio menu): use headphones, or the assistant will hear itself.</source>
        <translation>Micro ouvert et annulation d&apos;écho désactivée (menu Audio) : utilisez un casque, sinon l&apos;assistant s&apos;entendra lui-même.</translation>
    </message>
</context>
<context>
    <name>PersonaDialog</name>
    <message>
        <source>Choosing a persona starts a new conversation with it; the current conversation is kept in the library. Edits of the personas that come with Parley are saved as your own copy, which Reset undoes.</source>
        <translation>Choisir un persona démarre une nouvelle conversation avec lui ; la conversation en cours est gardée dans la bibliothèque. Les modifications des personas fournis avec Parley sont enregistrées comme votre propre copie, que Réinitialiser annule.</translation>
    </message>
    <message>
        <source>{name}  ·  edited</source>
        <translation>{name}  ·  modifié</translation>
    </message>
    <message>
        <source>{name}  ·  yours</source>
        <translation>{name}  ·  le vôtre</translation>
    </message>
    <message>
        <source>{name}  ·  damaged</source>
        <translation>{name}  ·  endommagé</translation>
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
        <translation>N&amp;ouveau</translation>
    </message>
    <message>
        <source>A new persona with the selected one&apos;s settings</source>
        <translation>Un nouveau persona avec les réglages du persona sélectionné</translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation>Su&amp;pprimer</translation>
    </message>
    <message>
        <source>S&amp;ave</source>
        <translation>&amp;Enregistrer</translation>
    </message>
    <message>
        <source>Start &amp;conversation</source>
        <translation>Démarrer la &amp;conversation</translation>
    </message>
    <message>
        <source>voice</source>
        <translation>voix</translation>
    </message>
    <message>
        <source>role</source>
        <translation>rôle</translation>
    </message>
    <message>
        <source>Empty: the model&apos;s default role ({role})</source>
        <translation>Vide : le rôle par défaut du modèle ({role})</translation>
    </message>
    <message>
        <source>Temperature of speech</source>
        <translation>Température de la parole</translation>
    </message>
    <message>
        <source>How varied the speech is (0 = always the likeliest; default {value})</source>
        <translation>Variété de la parole (0 = toujours le plus probable ; par défaut {value})</translation>
    </message>
    <message>
        <source>Temperature of words</source>
        <translation>Température des mots</translation>
    </message>
    <message>
        <source>How varied the words are (default {value})</source>
        <translation>Variété des mots (par défaut {value})</translation>
    </message>
    <message>
        <source>Top-k of speech</source>
        <translation>Top-k de la parole</translation>
    </message>
    <message>
        <source>Audio tokens to choose from (default {value})</source>
        <translation>Jetons audio parmi lesquels choisir (par défaut {value})</translation>
    </message>
    <message>
        <source>Top-k of words</source>
        <translation>Top-k des mots</translation>
    </message>
    <message>
        <source>Words to choose from (default {value})</source>
        <translation>Mots parmi lesquels choisir (par défaut {value})</translation>
    </message>
    <message>
        <source>Style</source>
        <translation>Style</translation>
    </message>
    <message>
        <source>How varied the assistant&apos;s speech and words are.</source>
        <translation>La variété de la parole et des mots de l&apos;assistant.</translation>
    </message>
    <message>
        <source>Numbers...</source>
        <translation>Valeurs...</translation>
    </message>
    <message>
        <source>Show the sampling settings the style stands for (temperature and top-k).</source>
        <translation>Afficher les réglages d&apos;échantillonnage que le style représente (température et top-k).</translation>
    </message>
    <message>
        <source>speech</source>
        <translation>parole</translation>
    </message>
    <message>
        <source>words</source>
        <translation>mots</translation>
    </message>
    <message>
        <source>Wait for me to speak first</source>
        <translation>Attendre que je parle en premier</translation>
    </message>
    <message>
        <source>The assistant stays silent until you press Talk or speak.</source>
        <translation>L&apos;assistant reste silencieux jusqu&apos;à ce que vous appuyiez sur Parler ou parliez.</translation>
    </message>
    <message>
        <source>&amp;Name</source>
        <translation>&amp;Nom</translation>
    </message>
    <message>
        <source>&amp;Voice</source>
        <translation>&amp;Voix</translation>
    </message>
    <message>
        <source>&amp;Role</source>
        <translation>&amp;Rôle</translation>
    </message>
    <message>
        <source>&amp;Style</source>
        <translation>&amp;Style</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>Température</translation>
    </message>
    <message>
        <source>Top-k</source>
        <translation>Top-k</translation>
    </message>
    <message>
        <source>The personas that come with Parley keep their names; New makes one of yours.</source>
        <translation>Les personas fournis avec Parley gardent leur nom ; Nouveau en crée un à vous.</translation>
    </message>
    <message>
        <source>R&amp;eset</source>
        <translation>Réinitia&amp;liser</translation>
    </message>
    <message>
        <source>Comes with Parley: cannot be deleted</source>
        <translation>Fourni avec Parley : ne peut pas être supprimé</translation>
    </message>
    <message>
        <source>Undo your changes: back to how Parley ships it</source>
        <translation>Annuler vos modifications : revenir à la version fournie avec Parley</translation>
    </message>
    <message>
        <source>Delete this persona</source>
        <translation>Supprimer ce persona</translation>
    </message>
</context>
<context>
    <name>PersonasModel</name>
    <message>
        <source>This model has no voice or role prompt: it speaks in the voice it was trained with. The style and &quot;wait for me&quot; apply; the voice and role are kept for PersonaPlex.</source>
        <translation>Ce modèle n&apos;a pas d&apos;invite de voix ni de rôle : il parle avec la voix de son entraînement. Le style et « attendre que je parle » s&apos;appliquent ; la voix et le rôle sont gardés pour PersonaPlex.</translation>
    </message>
    <message>
        <source>PersonaPlex speaks with the persona&apos;s voice and plays its role.</source>
        <translation>PersonaPlex parle avec la voix du persona et joue son rôle.</translation>
    </message>
    <message>
        <source>The voice and role apply to PersonaPlex models; the style and &quot;wait for me&quot; to every model.</source>
        <translation>La voix et le rôle s&apos;appliquent aux modèles PersonaPlex ; le style et « attendre que je parle » à tous les modèles.</translation>
    </message>
    <message>
        <source>Steady</source>
        <translation>Posé</translation>
    </message>
    <message>
        <source>Keeps to the likeliest words and sounds: predictable, sometimes flat.</source>
        <translation>S&apos;en tient aux mots et sons les plus probables : prévisible, parfois plat.</translation>
    </message>
    <message>
        <source>Calm</source>
        <translation>Calme</translation>
    </message>
    <message>
        <source>A little less varied than Balanced: unhurried and clear.</source>
        <translation>Un peu moins varié qu&apos;Équilibré : posé et clair.</translation>
    </message>
    <message>
        <source>Balanced</source>
        <translation>Équilibré</translation>
    </message>
    <message>
        <source>The model&apos;s own defaults.</source>
        <translation>Les réglages par défaut du modèle.</translation>
    </message>
    <message>
        <source>Relaxed</source>
        <translation>Détendu</translation>
    </message>
    <message>
        <source>The words vary more than Balanced; the voice the same.</source>
        <translation>Les mots varient plus qu&apos;Équilibré ; la voix reste la même.</translation>
    </message>
    <message>
        <source>Lively</source>
        <translation>Vif</translation>
    </message>
    <message>
        <source>Varied speech and words: surprising, now and then off the point.</source>
        <translation>Parole et mots variés : surprenant, parfois hors sujet.</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>Personnalisé</translation>
    </message>
    <message>
        <source>Set with the numbers (Numbers...).</source>
        <translation>Défini par les valeurs (Valeurs...).</translation>
    </message>
    <message>
        <source>the model&apos;s default voice</source>
        <translation>la voix par défaut du modèle</translation>
    </message>
    <message>
        <source>no voice prompt</source>
        <translation>pas d&apos;invite de voix</translation>
    </message>
    <message>
        <source>My persona</source>
        <translation>Mon persona</translation>
    </message>
    <message>
        <source>My persona {n}</source>
        <translation>Mon persona {n}</translation>
    </message>
    <message>
        <source>Made {name}; edit it and save.</source>
        <translation>{name} créé ; modifiez-le et enregistrez.</translation>
    </message>
    <message>
        <source>Saved {name}.</source>
        <translation>{name} enregistré.</translation>
    </message>
    <message>
        <source>Reset {name}.</source>
        <translation>{name} réinitialisé.</translation>
    </message>
    <message>
        <source>Deleted {name}.</source>
        <translation>{name} supprimé.</translation>
    </message>
</context>
<context>
    <name>PlaybackCapture</name>
    <message>
        <source>What {device} plays</source>
        <translation>Ce que joue {device}</translation>
    </message>
    <message>
        <source>this PortAudio has no WASAPI loopback inputs</source>
        <translation>ce PortAudio n&apos;a pas d&apos;entrées de bouclage WASAPI</translation>
    </message>
    <message>
        <source>macOS needs a loopback device (such as BlackHole): make it the output of what you want to hear, and choose it here as the input</source>
        <translation>macOS demande un périphérique de bouclage (comme BlackHole) : faites-en la sortie de ce que vous voulez entendre, puis choisissez-le ici comme entrée</translation>
    </message>
    <message>
        <source>it needs PulseAudio or PipeWire and their ALSA plugin (the &apos;pulse&apos; device)</source>
        <translation>il faut PulseAudio ou PipeWire et leur greffon ALSA (le périphérique « pulse »)</translation>
    </message>
    <message>
        <source>the sound server&apos;s outputs cannot be listed ({problem})</source>
        <translation>les sorties du serveur de son ne peuvent pas être listées ({problem})</translation>
    </message>
    <message>
        <source>the sound server has no outputs</source>
        <translation>le serveur de son n&apos;a aucune sortie</translation>
    </message>
</context>
<context>
    <name>PortalGrab</name>
    <message>
        <source>This desktop offers programs no desktop-wide keys (its portal has no GlobalShortcuts interface: {detail}).</source>
        <translation>Ce bureau n&apos;offre pas de touches globales aux programmes (son portail n&apos;a pas d&apos;interface GlobalShortcuts : {detail}).</translation>
    </message>
    <message>
        <source>A desktop-wide key on Wayland needs the Python package jeepney, which is not installed.</source>
        <translation>Une touche globale sous Wayland nécessite le paquet Python jeepney, qui n&apos;est pas installé.</translation>
    </message>
    <message>
        <source>Parley could not reach the desktop&apos;s session bus for a desktop-wide key ({problem}).</source>
        <translation>Parley n&apos;a pas pu joindre le bus de session du bureau pour une touche globale ({problem}).</translation>
    </message>
    <message>
        <source>The desktop refused a desktop-wide key: {detail}.</source>
        <translation>Le bureau a refusé une touche globale : {detail}.</translation>
    </message>
    <message>
        <source>The desktop would not open a session for desktop-wide keys.</source>
        <translation>Le bureau n&apos;a pas voulu ouvrir de session pour les touches globales.</translation>
    </message>
    <message>
        <source>Talk to Parley</source>
        <translation>Parler à Parley</translation>
    </message>
    <message>
        <source>You turned the desktop-wide key down in the desktop&apos;s question; choose it again in Audio → Talk key to be asked again.</source>
        <translation>Vous avez refusé la touche globale dans la question du bureau ; choisissez-la à nouveau dans Audio → Touche pour parler pour qu&apos;elle vous soit redemandée.</translation>
    </message>
    <message>
        <source>The desktop did not give Parley {key} or another key.</source>
        <translation>Le bureau n&apos;a donné à Parley ni {key} ni une autre touche.</translation>
    </message>
    <message>
        <source>The desktop&apos;s session bus went away ({problem}); the desktop-wide key stopped.</source>
        <translation>Le bus de session du bureau a disparu ({problem}) ; la touche globale s&apos;est arrêtée.</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <source>&amp;Look in:</source>
        <translation>&amp;Voir dans :</translation>
    </message>
    <message>
        <source>Files of &amp;type:</source>
        <translation>Fichiers de &amp;type :</translation>
    </message>
</context>
<context>
    <name>ReadAloud</name>
    <message>
        <source>Read aloud needs a Pocket TTS voice model: download one in the model manager (Model menu, Model manager).</source>
        <translation>La lecture à voix haute demande un modèle de voix Pocket TTS : téléchargez-en un dans le gestionnaire de modèles (menu Modèle, Gestionnaire de modèles).</translation>
    </message>
    <message>
        <source>This turn has no words to read.</source>
        <translation>Ce tour n&apos;a pas de mots à lire.</translation>
    </message>
    <message>
        <source>Reading aloud with {voice} ({model}); Esc stops.</source>
        <translation>Lecture à voix haute avec {voice} ({model}) ; Échap l&apos;arrête.</translation>
    </message>
    <message>
        <source>Reading aloud failed: {problem}</source>
        <translation>La lecture à voix haute a échoué : {problem}</translation>
    </message>
</context>
<context>
    <name>ReadAloudControls</name>
    <message>
        <source>Read aloud</source>
        <translation>Lire à voix haute</translation>
    </message>
    <message>
        <source>Stop reading</source>
        <translation>Arrêter la lecture</translation>
    </message>
    <message>
        <source>Stop reading aloud (Esc)</source>
        <translation>Arrêter la lecture à voix haute (Échap)</translation>
    </message>
    <message>
        <source>Model manager...</source>
        <translation>Gestionnaire de modèles...</translation>
    </message>
    <message>
        <source>Read aloud with {voice}</source>
        <translation>Lire à voix haute avec {voice}</translation>
    </message>
    <message>
        <source>Voice</source>
        <translation>Voix</translation>
    </message>
</context>
<context>
    <name>RecordVoiceDialog</name>
    <message>
        <source>The North Wind and the Sun were disputing which was the stronger, when a traveller came along wrapped in a warm cloak. They agreed that the one who first succeeded in making the traveller take his cloak off should be considered stronger than the other. Then the North Wind blew as hard as he could, but the more he blew, the more closely did the traveller fold his cloak around him; and at last the North Wind gave up the attempt. Then the Sun shone out warmly, and immediately the traveller took off his cloak.</source>
        <translation>La bise et le soleil se disputaient, chacun assurant qu&apos;il était le plus fort, quand ils ont vu un voyageur qui s&apos;avançait, enveloppé dans son manteau. Ils sont tombés d&apos;accord que celui qui arriverait le premier à faire ôter son manteau au voyageur serait regardé comme le plus fort. Alors, la bise s&apos;est mise à souffler de toute sa force, mais plus elle soufflait, plus le voyageur serrait son manteau autour de lui ; et à la fin, la bise a renoncé à le lui faire ôter. Alors le soleil a commencé à briller et au bout d&apos;un moment le voyageur, réchauffé, a ôté son manteau.</translation>
    </message>
    <message>
        <source>Record a voice</source>
        <translation>Enregistrer une voix</translation>
    </message>
    <message>
        <source>Press Record and read this aloud in your usual voice, for {least} to {most} seconds:</source>
        <translation>Cliquez sur Enregistrer et lisez ceci à voix haute, avec votre voix habituelle, pendant {least} à {most} secondes :</translation>
    </message>
    <message>
        <source>Microphone</source>
        <translation>Micro</translation>
    </message>
    <message>
        <source>recorded length</source>
        <translation>durée enregistrée</translation>
    </message>
    <message>
        <source>&amp;Record</source>
        <translation>&amp;Enregistrer</translation>
    </message>
    <message>
        <source>&amp;Listen</source>
        <translation>É&amp;couter</translation>
    </message>
    <message>
        <source>&amp;Name</source>
        <translation>&amp;Nom</translation>
    </message>
    <message>
        <source>e.g. My voice</source>
        <translation>p. ex. Ma voix</translation>
    </message>
    <message>
        <source>&amp;Save voice</source>
        <translation>&amp;Enregistrer la voix</translation>
    </message>
    <message>
        <source>&amp;Stop</source>
        <translation>&amp;Arrêter</translation>
    </message>
    <message>
        <source>Record &amp;again</source>
        <translation>Enregistrer à &amp;nouveau</translation>
    </message>
    <message>
        <source>Stop &amp;listening</source>
        <translation>Arrêter l&apos;é&amp;coute</translation>
    </message>
    <message>
        <source>{seconds} s</source>
        <translation>{seconds} s</translation>
    </message>
    <message numerus="yes">
        <source>Recording... %n s more at least.</source>
        <translation>
            <numerusform>Enregistrement... encore %n s au moins.</numerusform>
            <numerusform>Enregistrement... encore %n s au moins.</numerusform>
        </translation>
    </message>
    <message>
        <source>Recording... you can stop now, or go on (it stops at {most} s).</source>
        <translation>Enregistrement... vous pouvez arrêter maintenant, ou continuer (arrêt à {most} s).</translation>
    </message>
    <message>
        <source>Listen to it; record again if it does not sound like you, or name it and save it.</source>
        <translation>Écoutez-la ; enregistrez à nouveau si elle ne vous ressemble pas, ou nommez-la et enregistrez-la.</translation>
    </message>
    <message>
        <source>Not recording.</source>
        <translation>Pas d&apos;enregistrement en cours.</translation>
    </message>
</context>
<context>
    <name>RecoveryDialogs</name>
    <message>
        <source>Delete a crash journal?</source>
        <translation>Supprimer un journal de plantage ?</translation>
    </message>
    <message>
        <source>Parley did not close properly, and the journal of the conversation it was having cannot be read: {problem}

Delete {journal}? &apos;Keep&apos; leaves it there and asks again at the next start.</source>
        <translation>Parley ne s&apos;est pas fermé correctement, et le journal de la conversation en cours ne peut pas être lu : {problem}

Supprimer {journal} ? « Garder » le laisse en place et redemande au prochain démarrage.</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Supprimer</translation>
    </message>
    <message>
        <source>Keep</source>
        <translation>Garder</translation>
    </message>
    <message>
        <source>It was last saved to {file} {duration} before the end.</source>
        <translation>Elle a été enregistrée pour la dernière fois dans {file}, {duration} avant la fin.</translation>
    </message>
    <message>
        <source>Recover conversation?</source>
        <translation>Récupérer la conversation ?</translation>
    </message>
    <message>
        <source>Parley did not close properly. Recover the conversation it was having ({duration})?</source>
        <translation>Parley ne s&apos;est pas fermé correctement. Récupérer la conversation en cours ({duration}) ?</translation>
    </message>
    <message>
        <source>&apos;Later&apos; keeps it for the next start.</source>
        <translation>« Plus tard » la garde pour le prochain démarrage.</translation>
    </message>
    <message>
        <source>Recover</source>
        <translation>Récupérer</translation>
    </message>
    <message>
        <source>Later</source>
        <translation>Plus tard</translation>
    </message>
    <message>
        <source>Discard</source>
        <translation>Abandonner</translation>
    </message>
    <message>
        <source>Rebuilding the conversation...</source>
        <translation>Reconstruction de la conversation...</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Annuler</translation>
    </message>
</context>
<context>
    <name>ReplayBar</name>
    <message>
        <source>Play</source>
        <translation>Écouter</translation>
    </message>
    <message>
        <source>replay position</source>
        <translation>position de lecture</translation>
    </message>
    <message>
        <source>You left, assistant right</source>
        <translation>Vous à gauche, l&apos;assistant à droite</translation>
    </message>
    <message>
        <source>Off: both sides mixed on both speakers</source>
        <translation>Désactivé : les deux voix mélangées dans les deux haut-parleurs</translation>
    </message>
    <message>
        <source>Close replay</source>
        <translation>Fermer la lecture</translation>
    </message>
    <message>
        <source>Play or pause the conversation being replayed</source>
        <translation>Lire ou mettre en pause la conversation réécoutée</translation>
    </message>
    <message>
        <source>Replay: {title}</source>
        <translation>Réécoute : {title}</translation>
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
        <translation>Impossible de réécouter {file} : {problem}</translation>
    </message>
    <message>
        <source>Replay could not open the speaker: {problem}</source>
        <translation>La réécoute n&apos;a pas pu ouvrir le haut-parleur : {problem}</translation>
    </message>
</context>
<context>
    <name>Sides</name>
    <message>
        <source>You</source>
        <translation>Vous</translation>
    </message>
    <message>
        <source>Assistant</source>
        <translation>Assistant</translation>
    </message>
    <message>
        <source>Original</source>
        <translation>Original</translation>
    </message>
    <message>
        <source>Interpreter</source>
        <translation>Interprète</translation>
    </message>
</context>
<context>
    <name>Sizes</name>
    <message>
        <source>{n} B</source>
        <translation>{n} o</translation>
    </message>
    <message>
        <source>{size} KB</source>
        <translation>{size} Ko</translation>
    </message>
    <message>
        <source>{size} MB</source>
        <translation>{size} Mo</translation>
    </message>
    <message>
        <source>{size} GB</source>
        <translation>{size} Go</translation>
    </message>
</context>
<context>
    <name>Status</name>
    <message>
        <source>Idle</source>
        <translation>Inactif</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>Chargement…</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Prêt</translation>
    </message>
    <message>
        <source>Paused</source>
        <translation>En pause</translation>
    </message>
    <message>
        <source>Waiting for you</source>
        <translation>Vous attend</translation>
    </message>
    <message>
        <source>Listening</source>
        <translation>Écoute</translation>
    </message>
    <message>
        <source>Thinking</source>
        <translation>Réfléchit</translation>
    </message>
    <message>
        <source>Speaking</source>
        <translation>Parle</translation>
    </message>
</context>
<context>
    <name>TalkKeyDialog</name>
    <message>
        <source>Talk key</source>
        <translation>Touche pour parler</translation>
    </message>
    <message>
        <source>Talk from any program with a key</source>
        <translation>Parler depuis n&apos;importe quel programme avec une touche</translation>
    </message>
    <message>
        <source>Space still works while Parley&apos;s window has the focus.</source>
        <translation>Espace fonctionne toujours quand la fenêtre de Parley a le focus.</translation>
    </message>
    <message>
        <source>Press the key chord to use, for example Ctrl+Alt+Space.</source>
        <translation>Appuyez sur la combinaison de touches à utiliser, par exemple Ctrl+Alt+Espace.</translation>
    </message>
    <message>
        <source>Hold to talk (the microphone is open while the key is held)</source>
        <translation>Maintenir pour parler (le micro est ouvert tant que la touche est maintenue)</translation>
    </message>
    <message>
        <source>Tap to start, tap again to stop</source>
        <translation>Appuyer pour commencer, appuyer à nouveau pour arrêter</translation>
    </message>
    <message>
        <source>Key:</source>
        <translation>Touche :</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <source>Keep running in the tray</source>
        <translation>Continuer dans la zone de notification</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>Quitter</translation>
    </message>
    <message>
        <source>&amp;Talk</source>
        <translation>&amp;Parler</translation>
    </message>
    <message>
        <source>The model hears you until you choose Talk again.</source>
        <translation>Le modèle vous entend jusqu&apos;à ce que vous choisissiez à nouveau Parler.</translation>
    </message>
    <message>
        <source>&amp;Open mic (hands-free)</source>
        <translation>&amp;Micro ouvert (mains libres)</translation>
    </message>
    <message>
        <source>&amp;Pause</source>
        <translation>Mettre en pa&amp;use</translation>
    </message>
    <message>
        <source>Stop the frames (the conversation is kept); choose again to go on.</source>
        <translation>Arrêter les trames (la conversation est gardée) ; choisissez à nouveau pour continuer.</translation>
    </message>
    <message>
        <source>&amp;End conversation</source>
        <translation>&amp;Terminer la conversation</translation>
    </message>
    <message>
        <source>&amp;Show window</source>
        <translation>&amp;Afficher la fenêtre</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Quitter</translation>
    </message>
    <message>
        <source>&amp;Keep running in the tray when the window is closed</source>
        <translation>&amp;Continuer dans la zone de notification quand la fenêtre est fermée</translation>
    </message>
    <message>
        <source>Closing the window leaves Parley in the tray.</source>
        <translation>Fermer la fenêtre laisse Parley dans la zone de notification.</translation>
    </message>
    <message>
        <source>This desktop has no tray.</source>
        <translation>Ce bureau n&apos;a pas de zone de notification.</translation>
    </message>
    <message>
        <source>Close Parley</source>
        <translation>Fermer Parley</translation>
    </message>
    <message>
        <source>Keep Parley running in the tray when its window is closed? You can change this in View → Keep running in the tray.</source>
        <translation>Garder Parley actif dans la zone de notification quand sa fenêtre est fermée ? Vous pouvez changer cela dans Affichage → Continuer dans la zone de notification.</translation>
    </message>
</context>
<context>
    <name>TrayModel</name>
    <message>
        <source>Parley: idle</source>
        <translation>Parley : inactif</translation>
    </message>
    <message>
        <source>Parley: listening to you</source>
        <translation>Parley : vous écoute</translation>
    </message>
    <message>
        <source>Parley: the assistant is speaking</source>
        <translation>Parley : l&apos;assistant parle</translation>
    </message>
    <message>
        <source>Parley: waiting for you to speak first</source>
        <translation>Parley : attend que vous parliez en premier</translation>
    </message>
    <message>
        <source>Parley: too slow for real time</source>
        <translation>Parley : trop lent pour le temps réel</translation>
    </message>
    <message>
        <source>Parley: {status}</source>
        <translation>Parley : {status}</translation>
    </message>
</context>
<context>
    <name>TurnSentences</name>
    <message>
        <source>Interpreter: {text}</source>
        <translation>Interprète : {text}</translation>
    </message>
    <message>
        <source>Assistant: {text}</source>
        <translation>Assistant : {text}</translation>
    </message>
    <message numerus="yes">
        <source>The interpreter heard %n seconds of speech.</source>
        <translation>
            <numerusform>L&apos;interprète a entendu %n seconde de parole.</numerusform>
            <numerusform>L&apos;interprète a entendu %n secondes de parole.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The interpreter spoke for %n seconds.</source>
        <translation>
            <numerusform>L&apos;interprète a parlé pendant %n seconde.</numerusform>
            <numerusform>L&apos;interprète a parlé pendant %n secondes.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>You spoke for %n seconds.</source>
        <translation>
            <numerusform>Vous avez parlé pendant %n seconde.</numerusform>
            <numerusform>Vous avez parlé pendant %n secondes.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>The assistant spoke for %n seconds.</source>
        <translation>
            <numerusform>L&apos;assistant a parlé pendant %n seconde.</numerusform>
            <numerusform>L&apos;assistant a parlé pendant %n secondes.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>VoiceLibraryDialog</name>
    <message>
        <source>Audio (*.wav *.flac *.ogg *.mp3);;All files (*)</source>
        <translation>Audio (*.wav *.flac *.ogg *.mp3);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <source>NATF0..., VARM...: listed when a PersonaPlex model is loaded.</source>
        <translation>NATF0..., VARM... : listées quand un modèle PersonaPlex est chargé.</translation>
    </message>
    <message>
        <source>Voices</source>
        <translation>Voix</translation>
    </message>
    <message>
        <source>PersonaPlex speaks with the voice of its persona (Model &gt; Personas). Your own voices can be chosen there by name, and with &quot;parley offline --voice-prompt NAME&quot;.</source>
        <translation>PersonaPlex parle avec la voix de son persona (Modèle &gt; Personas). Vos propres voix peuvent y être choisies par leur nom, ainsi qu&apos;avec « parley offline --voice-prompt NOM ».</translation>
    </message>
    <message>
        <source>voices</source>
        <translation>voix</translation>
    </message>
    <message>
        <source>&amp;Record...</source>
        <translation>&amp;Enregistrer...</translation>
    </message>
    <message>
        <source>&amp;Import...</source>
        <translation>&amp;Importer...</translation>
    </message>
    <message>
        <source>&amp;Play</source>
        <translation>É&amp;couter</translation>
    </message>
    <message>
        <source>Re&amp;name...</source>
        <translation>Re&amp;nommer...</translation>
    </message>
    <message>
        <source>Remo&amp;ve</source>
        <translation>&amp;Supprimer</translation>
    </message>
    <message>
        <source>Your voices are kept in {folder}.</source>
        <translation>Vos voix sont gardées dans {folder}.</translation>
    </message>
    <message>
        <source>Shipped with the model</source>
        <translation>Fournies avec le modèle</translation>
    </message>
    <message>
        <source>Your voices</source>
        <translation>Vos voix</translation>
    </message>
    <message>
        <source>None yet: record one or import a recording.</source>
        <translation>Aucune pour l&apos;instant : enregistrez-en une ou importez un enregistrement.</translation>
    </message>
    <message>
        <source>Sto&amp;p</source>
        <translation>Arrê&amp;ter</translation>
    </message>
    <message>
        <source>Shipped voices have no recording to play.</source>
        <translation>Les voix fournies n&apos;ont pas d&apos;enregistrement à écouter.</translation>
    </message>
    <message>
        <source>Import a voice recording</source>
        <translation>Importer un enregistrement de voix</translation>
    </message>
    <message>
        <source>Import a voice</source>
        <translation>Importer une voix</translation>
    </message>
    <message>
        <source>Name of the voice:</source>
        <translation>Nom de la voix :</translation>
    </message>
    <message>
        <source>Rename a voice</source>
        <translation>Renommer une voix</translation>
    </message>
    <message>
        <source>New name for {name}:</source>
        <translation>Nouveau nom pour {name} :</translation>
    </message>
    <message>
        <source>Remove a voice</source>
        <translation>Supprimer une voix</translation>
    </message>
    <message>
        <source>Delete the voice {name} and its recording?</source>
        <translation>Supprimer la voix {name} et son enregistrement ?</translation>
    </message>
</context>
<context>
    <name>VoiceRecorder</name>
    <message>
        <source>No audio device is open: check the microphone and speaker in the main window.</source>
        <translation>Aucun périphérique audio n&apos;est ouvert : vérifiez le micro et le haut-parleur dans la fenêtre principale.</translation>
    </message>
    <message>
        <source>The audio device changed while recording: record again.</source>
        <translation>Le périphérique audio a changé pendant l&apos;enregistrement : enregistrez à nouveau.</translation>
    </message>
</context>
<context>
    <name>VoicesModel</name>
    <message>
        <source>Record or import only your own voice, or a voice used with its owner&apos;s consent. Recordings stay on this computer, readable by you only; nothing is sent anywhere.</source>
        <translation>N&apos;enregistrez ou n&apos;importez que votre propre voix, ou une voix utilisée avec l&apos;accord de son propriétaire. Les enregistrements restent sur cet ordinateur, lisibles par vous seul ; rien n&apos;est envoyé nulle part.</translation>
    </message>
    <message>
        <source>Saved the voice {name}.</source>
        <translation>Voix {name} enregistrée.</translation>
    </message>
    <message>
        <source>Imported {name} ({seconds} s).</source>
        <translation>{name} importée ({seconds} s).</translation>
    </message>
    <message>
        <source>Renamed {old} to {new}.</source>
        <translation>{old} renommée en {new}.</translation>
    </message>
    <message>
        <source>Removed {name}.</source>
        <translation>{name} supprimée.</translation>
    </message>
    <message>
        <source>Playing {name}...</source>
        <translation>Lecture de {name}...</translation>
    </message>
</context>
<context>
    <name>WindowsGrab</name>
    <message>
        <source>another program already uses it</source>
        <translation>un autre programme l&apos;utilise déjà</translation>
    </message>
    <message>
        <source>Windows error {code}</source>
        <translation>erreur Windows {code}</translation>
    </message>
    <message>
        <source>Windows refused {key} as Parley&apos;s talk key: {why}.</source>
        <translation>Windows a refusé {key} comme touche pour parler de Parley : {why}.</translation>
    </message>
</context>
<context>
    <name>X11Grab</name>
    <message>
        <source>The X11 library (libX11) is not installed, so no desktop-wide key can be set.</source>
        <translation>La bibliothèque X11 (libX11) n&apos;est pas installée : aucune touche globale ne peut être définie.</translation>
    </message>
    <message>
        <source>Parley could not connect to the X display for a desktop-wide key.</source>
        <translation>Parley n&apos;a pas pu se connecter à l&apos;affichage X pour une touche globale.</translation>
    </message>
    <message>
        <source>This keyboard has no {key} key.</source>
        <translation>Ce clavier n&apos;a pas de touche {key}.</translation>
    </message>
    <message>
        <source>another program already uses it</source>
        <translation>un autre programme l&apos;utilise déjà</translation>
    </message>
    <message>
        <source>X error {code}</source>
        <translation>erreur X {code}</translation>
    </message>
    <message>
        <source>The desktop refused {key} as Parley&apos;s talk key: {why}.</source>
        <translation>Le bureau a refusé {key} comme touche pour parler de Parley : {why}.</translation>
    </message>
</context>
</TS>
