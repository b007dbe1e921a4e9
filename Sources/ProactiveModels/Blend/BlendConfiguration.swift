import Foundation

// MARK: - Blend configuration

/// Hyperparameters of the default model (see `BlendModel`). Nothing here is
/// tuned to one person: the weights that matter are fitted per user.
public struct BlendConfiguration: Sendable, Hashable {
    package var profile: ProfileConfiguration
    package var logistic: LogisticConfiguration
    /// Include the logistic component (costlier to fit, helps with rich context).
    package var includeLogistic: Bool
    /// The share of the most recent training events whose rows see the logistic
    /// component fitted on the events before them.
    package var holdoutShare: Double
    /// Frecency half-lives (days) of the short and long recency features and transitions (long).
    package var shortHalfLifeDays: Double
    package var longHalfLifeDays: Double
    /// Half-life (days) of the recent time-of-day use signal, which lets a changed habit win within days.
    package var habitHalfLifeDays: Double
    /// A previous target within this many minutes counts as "just used" (gap-split features).
    package var transitionWindowMinutes: Double
    /// L2 pull of the blend weights toward their defaults (on the sum of row log-losses).
    package var weightL2: Double
    /// Rows (past events with their candidate features) kept for refitting the weights
    /// (dropped in blocks: between three quarters of this and this many are kept).
    package var maxRows: Int
    /// Upper bound on stored row values (rows x targets x features), bounding memory.
    package var maxRowValues: Int
    /// Blend weights are refitted after this many learned events.
    package var refitEvery: Int
    /// When refitting the weights, a row's log-likelihood counts half as much as that of the row this
    /// many rows after it (`nil`: all rows count the same). Short, so a changed habit moves the weights.
    package var rowHalfLife: Double?
    /// A row (an event with its signals, for fitting the weights) is asked halfway between the previous
    /// use and the event, at most this many minutes before it (`BlendModel.rowDate(for:)`): what comes
    /// next, as a person asks, rather than what happens at an instant known in advance. 0: at the event.
    package var rowLeadMinutes: Double
    /// The population's pooled rows (`BlendTrainer.population`) also hold, for each event whose previous
    /// use is more than `longRowGapMinutes` before it, a second row asked `longRowLeadMinutes` before it
    /// (`BlendModel.longRowSignals(for:)`): a person asks at any moment of a quiet hour, not only near its
    /// end, so the prior learns what a habit due later in the hour is worth against an app used often at
    /// any time. A user's own rows do not: a log evaluated at each donation's instant, and a user with a
    /// few dozen rows, are better served by rows near the event. 0: no such rows.
    package var longRowLeadMinutes: Double
    package var longRowGapMinutes: Double
    /// Quarter-hour routine signal: kernels around the clock (96: one per 15 minutes) and their
    /// concentration (128 gives a neighbouring centre about 0.76 of the peak, like 8 for 24 kernels).
    package var fineTimeKernels: Int
    package var fineTimeConcentration: Double
    /// Half-life (days) of the quarter-hour routine counts and of the activity level.
    package var routineHalfLifeDays: Double
    /// "After X" evidence by the gap since X: transitions within `transitionWindowMinutes` are
    /// recent, then stale up to `staleTransitionHours`, then overnight up to `overnightTransitionHours`;
    /// after that the previous target says nothing.
    package var staleTransitionHours: Double
    package var overnightTransitionHours: Double
    /// The guard: the most recent share of a user's rows is held out to choose how far the fitted
    /// weights are shrunk toward the simpler model that predicts those rows best.
    package var validationShare: Double
    /// Users with fewer rows than this keep the prior weights (population or fixed) as they are.
    package var guardMinimumRows: Int

    /// The logistic component refits less often inside the blend than alone (it is a minor, costly signal).
    public static let defaultLogistic = LogisticConfiguration(refitEvery: 200, refitAfterDays: 7)

    public init(profile: ProfileConfiguration = ProfileConfiguration(), logistic: LogisticConfiguration = BlendConfiguration.defaultLogistic,
                includeLogistic: Bool = true, holdoutShare: Double = 0.2, shortHalfLifeDays: Double = 1,
                longHalfLifeDays: Double = 14, habitHalfLifeDays: Double = 4, transitionWindowMinutes: Double = 30,
                weightL2: Double = 1, maxRows: Int = 1000, maxRowValues: Int = 8_000_000, refitEvery: Int = 20,
                rowHalfLife: Double? = 50, fineTimeKernels: Int = 96, fineTimeConcentration: Double = 512,
                routineHalfLifeDays: Double = 30, staleTransitionHours: Double = 8, overnightTransitionHours: Double = 24,
                validationShare: Double = 0.3, guardMinimumRows: Int = 20, rowLeadMinutes: Double = 20,
                longRowLeadMinutes: Double = 45, longRowGapMinutes: Double = 60) {
        self.profile = profile
        self.logistic = logistic
        self.includeLogistic = includeLogistic
        self.holdoutShare = holdoutShare
        self.shortHalfLifeDays = shortHalfLifeDays
        self.longHalfLifeDays = longHalfLifeDays
        self.habitHalfLifeDays = habitHalfLifeDays
        self.transitionWindowMinutes = transitionWindowMinutes
        self.weightL2 = weightL2
        self.maxRows = maxRows
        self.maxRowValues = maxRowValues
        self.refitEvery = refitEvery
        self.rowHalfLife = rowHalfLife
        self.rowLeadMinutes = rowLeadMinutes
        self.longRowLeadMinutes = longRowLeadMinutes
        self.longRowGapMinutes = longRowGapMinutes
        self.fineTimeKernels = fineTimeKernels
        self.fineTimeConcentration = fineTimeConcentration
        self.routineHalfLifeDays = routineHalfLifeDays
        self.staleTransitionHours = staleTransitionHours
        self.overnightTransitionHours = overnightTransitionHours
        self.validationShare = validationShare
        self.guardMinimumRows = guardMinimumRows
    }

    /// The same configuration with every component reading dates in `timeZoneIdentifier`.
    package func inTimeZone(_ timeZoneIdentifier: String?) -> BlendConfiguration {
        var copy = self
        copy.profile.encoder.timeZoneIdentifier = timeZoneIdentifier
        copy.logistic.encoder.timeZoneIdentifier = timeZoneIdentifier
        return copy
    }

    /// - Throws: `ConfigurationError` naming the first invalid field.
    package func validate() throws(ConfigurationError) {
        try profile.validate()
        try logistic.validate()
        guard profile.encoder == logistic.encoder else {
            throw ConfigurationError(field: "logistic.encoder", reason: "must equal profile.encoder (the components share features)")
        }
        guard holdoutShare > 0, holdoutShare < 1 else {
            throw ConfigurationError(field: "holdoutShare", reason: "must be in (0, 1), got \(holdoutShare)")
        }
        for (field, value) in [("shortHalfLifeDays", shortHalfLifeDays), ("longHalfLifeDays", longHalfLifeDays), ("habitHalfLifeDays", habitHalfLifeDays),
                               ("transitionWindowMinutes", transitionWindowMinutes), ("weightL2", weightL2),
                               ("fineTimeConcentration", fineTimeConcentration), ("routineHalfLifeDays", routineHalfLifeDays),
                               ("staleTransitionHours", staleTransitionHours), ("overnightTransitionHours", overnightTransitionHours)] {
            guard value > 0, value.isFinite else { throw ConfigurationError(field: field, reason: "must be positive, got \(value)") }
        }
        guard maxRows >= 1 else { throw ConfigurationError(field: "maxRows", reason: "must be at least 1, got \(maxRows)") }
        guard maxRowValues >= 1 else { throw ConfigurationError(field: "maxRowValues", reason: "must be at least 1") }
        if let rowHalfLife, !(rowHalfLife > 0 && rowHalfLife.isFinite) {
            throw ConfigurationError(field: "rowHalfLife", reason: "must be a positive number of rows, got \(rowHalfLife)")
        }
        guard fineTimeKernels >= 1, fineTimeKernels <= 1440 else {
            throw ConfigurationError(field: "fineTimeKernels", reason: "must be in 1...1440, got \(fineTimeKernels)")
        }
        guard transitionWindowMinutes <= staleTransitionHours * 60, staleTransitionHours <= overnightTransitionHours else {
            throw ConfigurationError(field: "staleTransitionHours", reason: "need transitionWindowMinutes <= stale <= overnight hours")
        }
        guard validationShare > 0, validationShare < 1 else {
            throw ConfigurationError(field: "validationShare", reason: "must be in (0, 1), got \(validationShare)")
        }
        guard guardMinimumRows >= 2 else {
            throw ConfigurationError(field: "guardMinimumRows", reason: "must be at least 2, got \(guardMinimumRows)")
        }
        guard rowLeadMinutes >= 0, rowLeadMinutes.isFinite else {
            throw ConfigurationError(field: "rowLeadMinutes", reason: "must be 0 or more minutes, got \(rowLeadMinutes)")
        }
        guard longRowLeadMinutes >= 0, longRowGapMinutes.isFinite, longRowGapMinutes >= longRowLeadMinutes else {
            throw ConfigurationError(field: "longRowGapMinutes",
                                     reason: "need 0 <= longRowLeadMinutes <= longRowGapMinutes, got \(longRowLeadMinutes) and \(longRowGapMinutes)")
        }
        guard refitEvery >= 1 else { throw ConfigurationError(field: "refitEvery", reason: "must be at least 1, got \(refitEvery)") }
    }
}
