//! Long runs seen from Python: between slices of a run, Ctrl-C stops it (the result so far is
//! reported, marked partial) and a progress callback hears how far it got.

use std::time::{Duration, Instant};

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;

use super::controllers::ErrorSlot;

/// How often, in wall time, a run looks for Ctrl-C and reports progress.
const EVERY: Duration = Duration::from_millis(50);

pub(crate) struct Watch {
    progress: Option<Py<PyAny>>,
    last: Instant,
    /// Ctrl-C arrived, so the run stopped early and its result is partial.
    pub(crate) interrupted: bool,
}

impl Watch {
    pub(crate) fn new(progress: Option<Py<PyAny>>) -> Self {
        Self {
            progress,
            last: Instant::now(),
            interrupted: false,
        }
    }

    /// Whether the run goes on, having done `done` of `total` (simulated seconds, or steps).
    /// Cheap to call often: it takes the GIL only every [`EVERY`]. An exception of the
    /// progress callback goes to `error` and stops the run; so does one of a Python
    /// controller, and Ctrl-C while a controller ran is taken out of `error` as an interrupt.
    pub(crate) fn go_on(&mut self, done: f64, total: f64, error: &ErrorSlot) -> bool {
        if let Some(e) = error.lock().ok().and_then(|mut slot| slot.take()) {
            if Python::attach(|py| e.is_instance_of::<PyKeyboardInterrupt>(py)) {
                self.interrupted = true;
            } else if let Ok(mut slot) = error.lock() {
                *slot = Some(e);
            }
            return false;
        }
        if self.last.elapsed() < EVERY {
            return true;
        }
        self.last = Instant::now();
        Python::attach(|py| {
            if py.check_signals().is_err() {
                self.interrupted = true;
                return false;
            }
            let Some(callback) = &self.progress else {
                return true;
            };
            match callback.call1(py, (done, total)) {
                Ok(_) => true,
                // Ctrl-C while the callback ran.
                Err(e) if e.is_instance_of::<PyKeyboardInterrupt>(py) => {
                    self.interrupted = true;
                    false
                }
                Err(e) => {
                    if let Ok(mut slot) = error.lock() {
                        slot.get_or_insert(e);
                    }
                    false
                }
            }
        })
    }
}
