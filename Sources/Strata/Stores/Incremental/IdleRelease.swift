import Dispatch

/// When a generation's snapshot lets go of what pins its state (a read transaction): a moment
/// (`idleTime` seconds) after the last context holding the generation let go of it, or after a
/// read no context held, unless a context holds it again by then. Reads that follow one another
/// keep sharing the snapshot; a process that stops reading holds nothing open on its database.
///
/// The SQL stores' snapshots keep one each and say what letting go is (`release`, called on a
/// global queue, which must itself check that no read is running and no context holds the
/// generation: a context may take it between the check here and the release).
package final class IdleRelease: Sendable {
    private struct State {
        var isHeld = false
        /// When the release may run, and when a check is scheduled for, if one is (one at a
        /// time: reads that follow one another move `due` later, and the check looks again).
        var due = DispatchTime.now()
        var checkScheduledFor: DispatchTime?
    }
    private let state = ThreadLocked(State())
    private let idleTime: ThreadLocked<Double>

    package init(idleTime: ThreadLocked<Double>) {
        self.idleTime = idleTime
    }

    /// Whether a context holds the generation.
    package var isHeld: Bool {
        state.withLock { $0.isHeld }
    }

    /// A context began to hold the generation (``IncrementalStoreSnapshot/contextsBeganHolding()``).
    package func held() {
        state.withLock { $0.isHeld = true }
    }

    /// The last context let go of the generation: `release` runs when the snapshot has been idle
    /// for `idleTime`.
    package func letGo(release: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.isHeld = false
            schedule(&state, release)
        }
    }

    /// A read through the snapshot ended: one no context held (a save's checks) schedules the
    /// release as a context letting go would.
    package func readEnded(release: @escaping @Sendable () -> Void) {
        state.withLock { state in
            if !state.isHeld { schedule(&state, release) }
        }
    }

    private func schedule(_ state: inout State, _ release: @escaping @Sendable () -> Void) {
        state.due = .now() + idleTime.withLock { $0 }
        scheduleCheck(&state, release)
    }

    private func scheduleCheck(_ state: inout State, _ release: @escaping @Sendable () -> Void) {
        if let scheduled = state.checkScheduledFor, scheduled <= state.due { return }
        state.checkScheduledFor = state.due
        DispatchQueue.global().asyncAfter(deadline: state.due) { [weak self] in self?.check(release) }
    }

    private func check(_ release: @escaping @Sendable () -> Void) {
        let isDue = state.withLock { state -> Bool in
            state.checkScheduledFor = nil
            guard !state.isHeld else { return false }
            guard state.due <= .now() else {
                scheduleCheck(&state, release)
                return false
            }
            return true
        }
        if isDue { release() }
    }
}
