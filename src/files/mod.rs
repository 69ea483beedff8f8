//! Files: the program's files and the rules every read and write follows. The one bounded
//! read (`bounded`); atomic writes, link rules and
//! the refusal of what is not a save (`save`), and each kind of file: saves and board files
//! (`save`), best scores (`best`), n-tuple weights (`weights`), pictures (`pictures`), solved 3x3 tables
//! (`solutions`), and the session's `Store` over all of them (`store`).

pub mod best;
pub mod bounded;
pub mod pictures;
pub mod save;
pub mod solutions;
pub mod store;
pub mod weights;
