//! Questions for the computer player that a front end answers off the thread that reads keys
//! (a search near 2048 takes a second): [`Question`] carries everything its answer needs, and
//! [`Answer`] goes back to [`super::Session::answered`], which drops it if the game moved on.

use super::{AdviceReport, Command, Event, Session, State, Store};
use crate::model::board::Board;
use crate::model::direction::Direction;
use crate::model::game::Status;
use crate::model::rules::Rules;
use crate::players::{AnyPlayer, choose_on_board};

/// What a front end may ask the computer player off the thread that reads keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// The move it would play.
    Move,
    /// Its advice.
    Advice,
}

/// A question for the computer player about one board ([`Session::question`]): everything
/// the answer needs, so that it is answered on another thread while keys go on working.
pub struct Question {
    pub(super) ask: Ask,
    pub(super) board: Board,
    pub(super) rules: Rules,
    pub(super) player: AnyPlayer,
}

/// A question's answer, for [`Session::answered`].
pub struct Answer {
    pub(super) board: Board,
    pub(super) rules: Rules,
    pub(super) reply: Reply,
}

pub(super) enum Reply {
    Move(Direction),
    Advice(AdviceReport),
}

impl Question {
    /// The answer: the player's search, which may take a second.
    pub fn answer(mut self) -> Answer {
        let reply = match self.ask {
            // The players that search choose without chance: no generator is drawn from.
            Ask::Move => Reply::Move(choose_on_board(
                &mut self.player,
                &self.board,
                &self.rules,
                &mut crate::model::random::seeded(0),
            )),
            Ask::Advice => Reply::Advice(AdviceReport::Search(
                self.player.advise_board(&self.board, &self.rules).flatten(),
            )),
        };
        Answer {
            board: self.board,
            rules: self.rules,
            reply,
        }
    }
}

impl<S: Store> Session<S> {
    /// `ask` about the game shown, as a question a front end answers on a thread of its own
    /// (a search near 2048 takes a second, the first move of a learned player its network's
    /// read), and hands back to [`Session::answered`]; `None` where the session answers at
    /// once ([`Command::ComputerMove`], [`Command::Advice`]): no game on, a player that does not
    /// search, advice from a solved table. Advice asked before the player has read its
    /// network comes from the advisor.
    pub fn question(&mut self, ask: Ask) -> Option<Question> {
        let (board, rules) = match &self.state {
            State::Game(game) if game.status() == Status::Playing => {
                (*game.board(), game.move_rules())
            }
            _ => return None,
        };
        let searches =
            |p: &AnyPlayer| matches!(p, AnyPlayer::Expectimax(_) | AnyPlayer::Learned(_));
        let player = match ask {
            Ask::Move if searches(&self.player) => self.player.clone(),
            Ask::Advice if self.store.table(&rules).is_some() => return None,
            Ask::Advice if searches(&self.player) && self.player.is_ready() => self.player.clone(),
            Ask::Advice if searches(&self.advisor) => self.advisor.clone(),
            Ask::Move | Ask::Advice => return None,
        };
        Some(Question {
            ask,
            board,
            rules,
            player,
        })
    }

    /// Carries out `answer` if the game is still where its question was asked (the same
    /// board under the same rules): a move played as the computer's, or advice. An answer to
    /// a board that changed since is dropped ([`Event::NotNow`]).
    pub fn answered(&mut self, answer: Answer) -> Vec<Event<S::Error>> {
        let same = match &self.state {
            State::Game(game) => {
                game.status() == Status::Playing
                    && *game.board() == answer.board
                    && game.move_rules() == answer.rules
            }
            _ => false,
        };
        match answer.reply {
            _ if !same => vec![Event::NotNow],
            Reply::Move(direction) => self.handle(Command::ComputerPlays(direction)),
            Reply::Advice(report) => vec![Event::Advice(report)],
        }
    }
}
