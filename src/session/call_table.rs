//! A turn's call table ([`CallTable`]): the browser calls the host is running, with their
//! deadlines. Below the turn that holds it and the code that hands calls out (`calls.rs`).

use crate::lean::sorted::SortedMap;

/// A browser call handed to the host and not answered yet.
pub(super) struct RunningCall {
    pub(super) tool_name: String,
    /// Whether its result is sent back in a restart (else it is recorded and nothing restarts).
    pub(super) follow_up: bool,
    /// Its time limit (`None`: none).
    pub(super) timeout_ms: Option<u32>,
    /// When its time is up (the host's clock, in ms); `None` until the host took the job.
    pub(super) deadline: Option<u64>,
    /// Whether the host called the handler (`Session::begin_call`): its module had loaded.
    pub(super) called: bool,
}

/// A turn's call table: the calls the host is running, by id, with their deadlines. It owns
/// them: a call enters when it is handed out ([`CallTable::start`]), gets its deadline when the
/// host takes the job ([`CallTable::stamp`]) and leaves with its outcome ([`CallTable::take`]).
#[derive(Default)]
pub(super) struct CallTable(SortedMap<RunningCall>);

impl CallTable {
    /// A call handed out: running, no deadline until the host takes it.
    pub(super) fn start(
        &mut self,
        id: String,
        tool_name: String,
        follow_up: bool,
        timeout_ms: Option<u32>,
    ) {
        let call = RunningCall {
            tool_name,
            follow_up,
            timeout_ms,
            deadline: None,
            called: false,
        };
        self.0.insert(id, call);
    }

    /// The host took the call's job at `now`: its time starts.
    pub(super) fn stamp(&mut self, id: &str, now: u64) {
        if let Some(call) = self.0.get_mut(id) {
            call.deadline = call.timeout_ms.map(|ms| now.saturating_add(u64::from(ms)));
        }
    }

    /// The host calls the call's handler now: `false` when the call is not running.
    pub(super) fn begin(&mut self, id: &str) -> bool {
        self.0.get_mut(id).map(|call| call.called = true).is_some()
    }

    /// Whether the call is running.
    pub(super) fn contains(&self, id: &str) -> bool {
        self.0.contains_key(id)
    }

    /// Whether no call is running.
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The call leaves the table (it has its outcome).
    pub(super) fn take(&mut self, id: &str) -> Option<RunningCall> {
        self.0.remove(id)
    }

    /// Every call leaves the table: `(id, tool name)` in id order.
    pub(super) fn drain(&mut self) -> Vec<(String, String)> {
        self.0
            .drain()
            .map(|(id, call)| (id, call.tool_name))
            .collect()
    }

    /// The deadlines of the running calls the host took.
    pub(super) fn deadlines(&self) -> impl Iterator<Item = u64> + '_ {
        self.0.values().filter_map(|call| call.deadline)
    }

    /// The calls running in the table, by id.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&String, &RunningCall)> {
        self.0.iter()
    }
}
