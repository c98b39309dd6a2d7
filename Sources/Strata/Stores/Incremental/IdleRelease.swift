import Dispatch

/// When a generation's snapshot lets go of what pins its state (a read transaction): a moment
/// (`idleTime` seconds) after the last context holding the generation let go of it, or after a
/// read no context held, unless a context holds it again by then. Reads that follow one another
/// keep sharing the snapshot; a process that stops reading holds nothing open on its database.
///
/// The SQL stores' snapshots keep one each and say what letting go is (`release`, called on a
/// global queue, which must itself check that no read is running and no context holds the
/// generation: a context may take it between the check here and the release).
///
/// One timer looks at every idle snapshot (``IdleSweep``), four times a second while there are
/// any. A timer per snapshot cost a timer and a wake-up at every save (each save makes a
/// generation, whose snapshot is let go when the save ends): `perf stat` over 1,000 one-object
/// saves (`profile-workload save-one`) counted 7,900–8,400 context switches and 256–258 ms of
/// CPU that way, 7,100–7,200 and 234–238 ms with the sweep, as with no release at all.
package final class IdleRelease: Sendable {
    private struct State {
        var isHeld = false
        /// When the release may run, what it is, and whether the sweep looks at this snapshot.
        var due = DispatchTime.now()
        var release: (@Sendable () -> Void)?
        var isSwept = false
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
        let sweep = state.withLock { state in
            state.isHeld = false
            return schedule(&state, release)
        }
        if sweep { IdleSweep.shared.add(self) }
    }

    /// A read through the snapshot ended: one no context held (a save's checks) schedules the
    /// release as a context letting go would.
    package func readEnded(release: @escaping @Sendable () -> Void) {
        let sweep = state.withLock { state in !state.isHeld && schedule(&state, release) }
        if sweep { IdleSweep.shared.add(self) }
    }

    /// Sets the release due `idleTime` from now; true when the sweep is to look at it anew.
    private func schedule(_ state: inout State, _ release: @escaping @Sendable () -> Void) -> Bool {
        state.due = .now() + idleTime.withLock { $0 }
        state.release = release
        defer { state.isSwept = true }
        return !state.isSwept
    }

    /// The sweep's look: runs the release if it is due and no context holds the generation.
    /// True while the sweep is to look again.
    fileprivate func sweep(now: DispatchTime) -> Bool {
        let (release, keep) = state.withLock { state -> ((@Sendable () -> Void)?, Bool) in
            guard !state.isHeld, let release = state.release else {
                state.isSwept = false
                return (nil, false)
            }
            guard state.due <= now else { return (nil, true) }
            (state.release, state.isSwept) = (nil, false)
            return (release, false)
        }
        release?()
        return keep
    }
}

/// The one timer that looks at idle snapshots (``IdleRelease``): every quarter of a second while
/// any is waiting, none otherwise.
private final class IdleSweep: Sendable {
    static let shared = IdleSweep()
    private struct Waiting {
        weak var release: IdleRelease?
    }
    private let state = ThreadLocked((waiting: [Waiting](), isScheduled: false))
    static let interval = 0.25

    func add(_ release: IdleRelease) {
        let schedule = state.withLock { state in
            state.waiting.append(Waiting(release: release))
            defer { state.isScheduled = true }
            return !state.isScheduled
        }
        if schedule { scheduleSweep() }
    }

    private func scheduleSweep() {
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.interval) { self.sweep() }
    }

    private func sweep() {
        let now = DispatchTime.now()
        let waiting = state.withLock { state in
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        // Outside the lock: a release takes its snapshot's lock, and a snapshot's read adds to
        // this list under it.
        let kept = waiting.filter { $0.release?.sweep(now: now) ?? false }
        let schedule = state.withLock { state in
            state.waiting.append(contentsOf: kept)
            state.isScheduled = !state.waiting.isEmpty
            return state.isScheduled
        }
        if schedule { scheduleSweep() }
    }
}
