"""The conversation panel: the turns, the replay bar and the talk controls.

It shows the live conversation's turns, or, while a saved one is replayed, the replayed turns
with the one being played selected; clicking a turn there seeks to it.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QFont, QFontMetrics
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from app.conversation.health import HealthModel
from app.conversation.interpreter_mode import continuous_tip, placeholder
from app.conversation.replay import PLAYING, STOPPED, ReplayPlayer
from app.conversation.transcript import clock
from app.conversation.view import ConversationView
from app.conversation.view_model import ConversationModel
from app.library.listing import read_entry
from app.widgets.colours import Scheme, scheme_for
from app.widgets.elided_label import ElidedLabel
from app.widgets.plain_text import PlainLabel

SLIDER_STEPS_PER_SECOND = 10
WARNING_LINES = 3  # the speed warning's room: its longest text wraps to 3 lines in the narrowest column


class ReplayBar(QFrame):
    """Play/pause, position, the channel layout and Close, for the conversation being replayed."""

    def __init__(self, replay: ReplayPlayer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.replay = replay
        self.setObjectName("replayBar")
        self.setFrameShape(QFrame.StyledPanel)
        rows = QVBoxLayout(self)
        self.title_label = ElidedLabel(elide=Qt.ElideMiddle)  # a long title never widens the window
        self.title_label.setStyleSheet("font-weight: bold;")
        # The title on a row of its own: beside the options a translated title was cut to a few letters.
        options, layout = QHBoxLayout(), QHBoxLayout()  # the options; the transport
        rows.addWidget(self.title_label)
        rows.addLayout(options)
        rows.addLayout(layout)
        self.play_button = QPushButton(self.tr("Play"))
        self.position = QSlider(Qt.Horizontal)
        self.position.setMinimumWidth(120)
        self.position.setAccessibleName(self.tr("replay position"))
        self.time_label = QLabel("00:00.0")
        self.split_box = QCheckBox(self.tr("You left, assistant right"))
        self.split_box.setToolTip(self.tr("Off: both sides mixed on both speakers"))
        self.close_button = QPushButton(self.tr("Close replay"))
        self.play_button.setAccessibleDescription(self.tr("Play or pause the conversation being replayed"))
        options.addWidget(self.split_box)
        options.addStretch(1)
        options.addWidget(self.close_button)
        layout.addWidget(self.play_button)
        layout.addWidget(self.position, 1)
        layout.addWidget(self.time_label)
        self.play_button.clicked.connect(self._toggle)
        self.position.sliderMoved.connect(lambda v: replay.seek(v / SLIDER_STEPS_PER_SECOND))
        self.split_box.toggled.connect(replay.set_split)
        replay.state_changed.connect(self._render_state)
        replay.position_changed.connect(self._render_position)
        replay.loaded.connect(self._render_loaded)

    def tab_chain(self) -> list[QWidget]:
        return [self.split_box, self.close_button, self.play_button, self.position]

    def _toggle(self) -> None:
        if self.replay.state == PLAYING:
            self.replay.pause()
        else:
            self.replay.play()

    def _render_loaded(self, path: str) -> None:
        self.title_label.setText(self.tr("Replay: {title}").format(title=read_entry(self.replay.path).title))
        self.position.setRange(0, int(self.replay.duration * SLIDER_STEPS_PER_SECOND))
        self._render_state(self.replay.state)

    def _render_state(self, state: str) -> None:
        self.play_button.setText(self.tr("Pause") if state == PLAYING else self.tr("Play"))

    def _render_position(self, seconds: float) -> None:
        if not self.position.isSliderDown():
            self.position.setValue(int(seconds * SLIDER_STEPS_PER_SECOND))
        self.time_label.setText(f"{clock(seconds)} / {clock(self.replay.duration)}")


class ConversationPanel(QWidget):
    def __init__(self, model: ConversationModel, replay: ReplayPlayer, health: HealthModel,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.health = health
        self.replay = replay
        self.replaying = False
        self._clip_pending = False  # a live turn to play once its audio arrives
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.replay_bar = ReplayBar(replay)
        self.replay_bar.hide()
        self.replay_bar.close_button.clicked.connect(self.close_replay)
        layout.addWidget(self.replay_bar)
        self.view = ConversationView()
        self.view.setModel(model.turns)
        self.view.clicked.connect(self._turn_clicked)
        self.view.play_requested.connect(self._play_turn)
        layout.addWidget(self.view, 1)
        self.placeholder = PlainLabel()
        self.placeholder.setAlignment(Qt.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setStyleSheet(f"color: {self.scheme.muted};")
        layout.addWidget(self.placeholder, 1)  # in the view's place while there is nothing to show
        layout.addWidget(self._build_speed_warning())
        health.warning_changed.connect(self._render_speed_warning)

        controls = QHBoxLayout()
        self.talk_button = QPushButton(self.tr("Hold to talk  (Space)"))
        self.talk_button.setToolTip(self.tr("Hold this button, or Space, while you speak."))
        self.talk_button.setMinimumHeight(44)
        self.talk_button.pressed.connect(lambda: model.press_talk("button"))
        self.talk_button.released.connect(lambda: model.release_talk("button"))
        self.open_mic_box = QCheckBox(self.tr("Open mic (hands-free)"))
        self.open_mic_box.setChecked(model.preferences.settings.open_mic)
        self.open_mic_box.setToolTip(self.tr("The model hears the microphone all the time. Echo cancellation "
                                             "(Audio menu) keeps it from hearing itself on speakers."))
        self.open_mic_box.toggled.connect(model.set_open_mic)
        self.start_button = QPushButton()
        self.start_button.setMinimumHeight(44)
        self.start_button.clicked.connect(self._start_or_pause)
        self.end_button = QPushButton(self.tr("End"))
        self.end_button.setMinimumHeight(44)
        self.end_button.setToolTip(self.tr("End this conversation (you are asked to save what you said); a new one "
                                           "waits for Talk or Start."))
        controls.addWidget(self.start_button)
        controls.addWidget(self.end_button)
        controls.addWidget(self.talk_button, 1)
        layout.addLayout(controls)
        open_mic_row = QHBoxLayout()  # under the buttons: one row of all four is too wide for 800 px
        self.headphones_note = PlainLabel()
        self.headphones_note.setWordWrap(True)
        model.devices.processing_changed.connect(self._render_open_mic_note)
        open_mic_row.addWidget(self.open_mic_box)
        open_mic_row.addWidget(self.headphones_note, 1)
        layout.addLayout(open_mic_row)

        model.talk_changed.connect(self._render_talk)
        model.models.model_changed.connect(self._render_mode)
        model.live_changed.connect(self._render_live)
        model.waiting_changed.connect(self._render_live)
        model.talk_available_changed.connect(self._render_live)
        model.status_changed.connect(self._render_live)
        model.conversation_replaced.connect(self._render_live)
        model.conversation_replaced.connect(self._conversation_replaced)
        model.turns.rowsInserted.connect(self._render_placeholder)
        model.turns.modelReset.connect(self._render_placeholder)
        replay.position_changed.connect(self._follow_replay)
        replay.loaded.connect(self._show_replay)
        model.clip_ready.connect(self._play_clip)
        self._render_placeholder()
        self._render_open_mic_note()
        self._render_speed_warning(health.warning)
        self._render_live()

    @property
    def scheme(self) -> Scheme:
        return scheme_for(self.palette())

    def _build_speed_warning(self) -> QLabel:
        """A strip of ``WARNING_LINES`` lines that keeps its place while hidden: the warning coming
        and going never moves the conversation or the Talk button."""
        self.speed_warning = PlainLabel()
        self.speed_warning.setObjectName("speedWarning")
        self.speed_warning.setWordWrap(True)
        self.speed_warning.setAlignment(Qt.AlignLeft | Qt.AlignVCenter)
        self.speed_warning.setStyleSheet(f"#speedWarning {{ color: {self.scheme.warning}; font-weight: bold; }}")
        bold = QFont(self.speed_warning.font())
        bold.setBold(True)
        self.speed_warning.setFixedHeight(WARNING_LINES * QFontMetrics(bold).lineSpacing() + 4)
        policy = self.speed_warning.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.speed_warning.setSizePolicy(policy)
        return self.speed_warning

    def tab_chain(self) -> list[QWidget]:
        return [*self.replay_bar.tab_chain(), self.view, self.start_button, self.end_button, self.talk_button,
                self.open_mic_box]  # as they are read: left to right, then the row below

    # -- live ----------------------------------------------------------------------------------
    def _render_talk(self, talk) -> None:
        self.talk_button.setDown(bool(talk.held_by))
        self.headphones_note.setVisible(talk.open_mic or talk.listening)

    def _render_mode(self) -> None:
        """Interpreter mode or a conversation: the note, the controls and the placeholder."""
        self._render_open_mic_note()
        self._render_live()

    def _start_or_pause(self) -> None:
        if self.model.live:
            self.model.pause()
        else:
            self.model.start()

    def _render_live(self, *_args) -> None:
        """Start (Continue for a conversation that ran) or Pause; Talk and open mic only where they can work."""
        model = self.model
        available, why = model.talk_available()
        if model.live:
            text = self.tr("Pause")
            tip = self.tr("Stop the conversation: the model uses no processor time until you continue.")
        else:
            text = self.tr("Continue") if model.has_content else self.tr("Start")
            tip = why or self.tr("Run the conversation: the assistant listens and may speak. Talk starts it too.")
        self.start_button.setText(text)
        self.start_button.setToolTip(tip)
        chatting = model.chat.active  # your language model: its own loop, no Start
        self.start_button.setEnabled(model.live or (available and not chatting))
        self.end_button.setEnabled(model.can_end)
        self.talk_button.setEnabled(available and not model.models.interpreting)
        self.open_mic_box.setEnabled(available and not model.models.interpreting
                                     and (not chatting or model.chat.turn_ends))
        self.talk_button.setToolTip(why or (continuous_tip() if model.models.interpreting
                                            else self.tr("Hold it (or Space) while you speak.")))
        self.placeholder.setText(self._placeholder_text())

    def _placeholder_text(self) -> str:
        """What to do first, as things stand (Interpreter mode has its own)."""
        model = self.model
        if model.models.interpreting:
            return placeholder()
        if not model.live:
            return self.tr("Hold Space (or the Talk button) and speak, or press Start to let the assistant begin. "
                           "The conversation appears here.")
        if model.waiting_for_user:
            return self.tr("The assistant waits for you: hold Space (or the Talk button) and speak.")
        return self.tr("The conversation runs: hold Space (or the Talk button) and speak. It appears here.")

    def _render_speed_warning(self, text: str) -> None:
        self.speed_warning.setText(text)
        self.speed_warning.setToolTip(self.health.warning_tip)
        self.speed_warning.setVisible(bool(text))

    def _render_open_mic_note(self) -> None:
        text, warning = self.model.devices.open_mic_note()
        self.headphones_note.setText(text)
        self.headphones_note.setStyleSheet(f"color: {self.scheme.warning};" if warning else "")
        self.headphones_note.setVisible(self.model.talk.open_mic or self.model.talk.listening)

    def _render_placeholder(self, *_args) -> None:
        empty = not self.replaying and self.model.turns.rowCount() == 0
        self.placeholder.setVisible(empty)
        self.view.setVisible(not empty)

    # -- replay --------------------------------------------------------------------------------
    def _show_replay(self, _path: str) -> None:
        self.replaying = True
        self.view.setModel(self.replay.turns)
        self.view.follow = False  # replay follows the turn being played instead
        self.replay_bar.show()
        self._render_placeholder()

    def _conversation_replaced(self) -> None:
        """A new or opened conversation is what the view shows next, not a replay left open."""
        if self.replaying:
            self.close_replay()

    def close_replay(self) -> None:
        self.replay.stop()
        self.replaying = False
        self.view.setModel(self.model.turns)
        self.replay_bar.hide()
        self._render_placeholder()

    def _turn_clicked(self, index: QModelIndex) -> None:
        if self.replaying:
            self.replay.seek(self.replay.turns.transcript.turns[index.row()].start)

    def _play_turn(self, row: int) -> None:
        """A user turn's play button: in replay, play on from that turn; live, play that turn
        from the conversation's recording (asked of the worker, which holds it)."""
        if self.replaying:
            self.replay.seek(self.replay.turns.transcript.turns[row].start)
            if self.replay.state != PLAYING:
                self.replay.play()
            return
        turn = self.model.transcript.turns[row]
        self._clip_pending = True
        self.model.request_clip(turn.start, turn.end)

    def _play_clip(self, clip) -> None:  # an engine_messages.ClipReady
        if self._clip_pending and not self.replaying:
            self.replay.play_clip(clip.user, clip.assistant, clip.start_s)
        self._clip_pending = False

    def _follow_replay(self, seconds: float) -> None:
        if not self.replaying or self.replay.state == STOPPED and seconds == 0.0:
            return
        row = self.replay.turns.transcript.turn_at(seconds)
        if row is not None and self.view.currentIndex().row() != row:
            index = self.replay.turns.index(row)
            self.view.setCurrentIndex(index)
            self.view.scrollTo(index)
