import Foundation
import ProactiveCore

// MARK: - The routine suite's scenarios

/// The planted routines the engine is judged on: each a generated log and what a person expects the engine
/// to answer at a few moments (see `RoutineScenario`; `RoutineSuite.run` judges the engine on them).
///
/// Every log starts on a Monday (day 0), so day 47 is a Saturday and day 42 a Monday.
///
/// ```swift
/// let names = RoutineCatalogue.all.map(\.name)              // ["lunch-by-day-type", ...]
/// let dst = RoutineCatalogue.scenario(named: "dst-los-angeles")
/// ```
public enum RoutineCatalogue {
    /// Every scenario, in a fixed order.
    public static let all: [RoutineScenario] = [
        lunchByDayType, saturdayAfterWeather, saturdayBrowsing, weekdayWithoutWeather, twentyMinutesApart, focusMornings, gymPlace,
        movedCoffee, newHabitLive, holidayGap, dstLosAngeles, tenDonations, noisyUser, nightOwl, countedWater,
        deletedHabit, twoUsers,
    ]

    /// The scenario called `name`, if any.
    public static func scenario(named name: String) -> RoutineScenario? { all.first { $0.name == name } }

    // MARK: Actions

    static let weather = RoutineAction(app: "com.example.weather", intent: "CheckWeatherIntent")
    static let coffee = RoutineAction(app: "com.example.coffee", intent: "OrderCoffeeIntent")
    static let tea = RoutineAction(app: "com.example.tea", intent: "OrderTeaIntent")
    static let mail = RoutineAction.open("com.example.mail")
    static let reading = RoutineAction(app: "com.example.books", intent: "ReadBookIntent")
    static let browser = RoutineAction.open("com.example.browser")
    static let podcast = RoutineAction(app: "com.example.podcasts", intent: "PlayEpisodeIntent")
    static let recipes = RoutineAction.open("com.example.recipes")
    static let news = RoutineAction.open("com.example.news")
    static let chat = RoutineAction.open("com.example.chat")
    static let journal = RoutineAction.open("com.example.journal")
    static let tv = RoutineAction.open("com.example.tv")
    static let workout = RoutineAction(app: "com.example.fitness", intent: "StartWorkoutIntent")
    static let meditation = RoutineAction(app: "com.example.calm", intent: "StartMeditationIntent")
    static let maps = RoutineAction.open("com.example.maps")
    static let camera = RoutineAction.open("com.example.camera")
    static let transit = RoutineAction(app: "com.example.transit", intent: "NextDepartureIntent")
    static let notes = RoutineAction.open("com.example.notes")
    static let water = RoutineAction(app: "com.example.water", intent: "LogWaterIntent")
    static let bank = RoutineAction.open("com.example.bank")
    static let game = RoutineAction.open("com.example.game")
    static let music = RoutineAction.open("com.example.music")

    /// Minute of the day of `hour`:`minute`.
    static func t(_ hour: Int, _ minute: Int) -> Int { hour * 60 + minute }

    /// A Monday: every scenario's first day unless it says otherwise.
    static let monday = RoutineDate(2026, 9, 7)

    /// The reference user: weather about 07:05 every day, coffee about 07:40 and mail at 13:00 on
    /// weekdays, reading at 21:30 (+-12 min each), a podcast about 08:30 (+-15) and recipes about 12:50
    /// (+-12) on weekends, and three random browser launches a day.
    static func referenceUser(_ name: String, timeZone: String, trainingDays: Int, noise: [RoutineNoise] = []) -> RoutineUser {
        RoutineUser(name, timeZone: timeZone, start: monday, trainingDays: trainingDays, habits: [
            RoutineHabit(weather, at: t(7, 5), jitter: 12),
            RoutineHabit(coffee, at: t(7, 40), jitter: 12, on: .weekdays),
            RoutineHabit(mail, at: t(13, 0), jitter: 12, on: .weekdays),
            RoutineHabit(reading, at: t(21, 30), jitter: 12),
            RoutineHabit(podcast, at: t(8, 30), jitter: 15, on: .weekends),
            RoutineHabit(recipes, at: t(12, 50), jitter: 12, on: .weekends),
        ], noise: [RoutineNoise(apps: [browser.app], amount: .perDay(3), from: t(9, 0), to: t(22, 0))] + noise)
    }

    // MARK: Scenarios

    static let lunchByDayType = RoutineScenario(
        "lunch-by-day-type", covers: "time x day type",
        why: "At lunch this person opens mail on weekdays and recipes on weekends, so a Wednesday lunch means mail and a Saturday one recipes.",
        seed: 27_01, users: [referenceUser("ana", timeZone: "Europe/Berlin", trainingDays: 42)],
        steps: [
            .donate(.init("ana", weather, day: 44, at: t(7, 6))),
            .donate(.init("ana", coffee, day: 44, at: t(7, 41))),
            .check(.init("ana", day: 44, at: t(12, 58), expect: mail, reason: "on weekdays")),
            .donate(.init("ana", mail, day: 44, at: t(13, 1))),
            .donate(.init("ana", reading, day: 44, at: t(21, 29))),
            .donate(.init("ana", weather, day: 47, at: t(7, 3))),
            .donate(.init("ana", podcast, day: 47, at: t(8, 33))),
            .check(.init("ana", day: 47, at: t(12, 52), expect: recipes, reason: "on weekends", notReason: "on weekdays")),
        ])

    static let saturdayAfterWeather = RoutineScenario(
        "saturday-after-weather", covers: "sequence x day type",
        why: "Coffee follows the weather check only on weekdays (none of the 12 weekend mornings had coffee), so after Saturday's weather check the weekend podcast is next, and on Monday coffee is.",
        seed: 27_02, users: [referenceUser("ana", timeZone: "Asia/Tokyo", trainingDays: 47)],
        steps: [
            .donate(.init("ana", weather, day: 47, at: t(7, 4))),
            .check(.init("ana", day: 47, at: t(7, 38), expect: podcast, notReason: "on weekdays")),
            .donate(.init("ana", podcast, day: 47, at: t(8, 31))),
            .donate(.init("ana", weather, day: 48, at: t(7, 2))),
            .donate(.init("ana", podcast, day: 48, at: t(8, 27))),
            .donate(.init("ana", weather, day: 49, at: t(7, 4))),
            .check(.init("ana", day: 49, at: t(7, 38), expect: coffee, reason: "after CheckWeatherIntent")),
        ])

    /// The reference user's own log: no weekend habit but the weather check and reading; weekend
    /// mornings are for browsing (a launch between 07:30 and 09:30, besides three a day at random).
    static let saturdayBrowsing = RoutineScenario(
        "saturday-browsing", covers: "sequence x day type",
        why: "On weekend mornings this person browses and never orders coffee (12 weekends of it), so after Saturday's weather check the browser is next, not the weekday coffee.",
        seed: 27_17,
        users: [RoutineUser("ana", timeZone: "Asia/Tokyo", start: monday, trainingDays: 47, habits: [
            RoutineHabit(weather, at: t(7, 5), jitter: 12),
            RoutineHabit(coffee, at: t(7, 40), jitter: 12, on: .weekdays),
            RoutineHabit(mail, at: t(13, 0), jitter: 12, on: .weekdays),
            RoutineHabit(reading, at: t(21, 30), jitter: 12),
            RoutineHabit(browser, at: t(8, 30), jitter: 60, on: .weekends),
        ], noise: [RoutineNoise(apps: [browser.app], amount: .perDay(3), from: t(9, 0), to: t(22, 0))])],
        steps: [
            .donate(.init("ana", weather, day: 47, at: t(7, 4))),
            .check(.init("ana", day: 47, at: t(7, 38), expect: browser, notReason: "on weekdays")),
        ])

    static let weekdayWithoutWeather = RoutineScenario(
        "weekday-without-weather", covers: "sequence absent",
        why: "Coffee at 07:40 is a weekday habit of its own; a morning without the 07:05 weather check does not move it, and 07:38 is long past weather time.",
        seed: 27_03, users: [referenceUser("ana", timeZone: "Europe/Berlin", trainingDays: 43)],
        steps: [
            .check(.init("ana", day: 43, at: t(7, 38), expect: coffee, notReason: "after CheckWeatherIntent")),
        ])

    static let twentyMinutesApart = RoutineScenario(
        "twenty-minutes-apart", covers: "two habits 20 minutes apart",
        why: "The podcast comes at 08:00 and the news at 08:20 every day, so just before 08:00 it is the podcast and once it played, the news.",
        seed: 27_04,
        users: [RoutineUser("ben", timeZone: "Asia/Tokyo", start: monday, trainingDays: 42, habits: [
            RoutineHabit(weather, at: t(7, 0), jitter: 10),
            RoutineHabit(podcast, at: t(8, 0), jitter: 5),
            RoutineHabit(news, at: t(8, 20), jitter: 5),
            RoutineHabit(mail, at: t(12, 30), jitter: 15, on: .weekdays),
            RoutineHabit(tv, at: t(20, 0), jitter: 30),
        ])],
        steps: [
            .donate(.init("ben", weather, day: 42, at: t(7, 1))),
            .check(.init("ben", day: 42, at: t(7, 57), expect: podcast, reason: "usually")),
            .donate(.init("ben", podcast, day: 42, at: t(8, 1))),
            .check(.init("ben", day: 42, at: t(8, 17), expect: news, reason: "after PlayEpisodeIntent")),
        ])

    static let focusMornings = RoutineScenario(
        "focus-mornings", covers: "Focus x time",
        why: "At 09:00 this person opens chat in the work Focus and the journal in the personal Focus, whichever day it is, so the Focus decides.",
        seed: 27_05,
        users: [RoutineUser("cara", timeZone: "America/New_York", start: monday, trainingDays: 42, habits: [
            RoutineHabit(weather, at: t(7, 30), jitter: 10),
            RoutineHabit(chat, at: t(9, 0), jitter: 10, on: .alternate(0), context: ["focus": "work"]),
            RoutineHabit(journal, at: t(9, 0), jitter: 10, on: .alternate(1), context: ["focus": "personal"]),
            RoutineHabit(tv, at: t(20, 0), jitter: 30, context: ["focus": "personal"]),
        ])],
        steps: [
            .donate(.init("cara", weather, day: 42, at: t(7, 31))),
            .check(.init("cara", day: 42, at: t(8, 58), context: ["focus": "work"], expect: chat, reason: "when focus=work")),
            .donate(.init("cara", chat, day: 42, at: t(9, 2), context: ["focus": "work"])),
            .donate(.init("cara", tv, day: 42, at: t(20, 5), context: ["focus": "personal"])),
            .donate(.init("cara", weather, day: 43, at: t(7, 29))),
            .check(.init("cara", day: 43, at: t(8, 58), context: ["focus": "work"], expect: chat, reason: "when focus=work",
                         notReason: "when focus=personal")),
            .donate(.init("cara", chat, day: 43, at: t(9, 1), context: ["focus": "work"])),
            .donate(.init("cara", weather, day: 44, at: t(7, 32))),
            .check(.init("cara", day: 44, at: t(8, 58), context: ["focus": "personal"], expect: journal, reason: "when focus=personal",
                         notReason: "when focus=work")),
        ])

    static let gymPlace = RoutineScenario(
        "gym-place", covers: "place",
        why: "At 18:00 this person starts a workout when at the gym and watches TV when at home, so the place decides, not the weekday.",
        seed: 27_06,
        users: [RoutineUser("dev", timeZone: "Asia/Kolkata", start: monday, trainingDays: 42, habits: [
            RoutineHabit(weather, at: t(7, 0), jitter: 10, context: ["place": "home"]),
            RoutineHabit(mail, at: t(10, 0), jitter: 15, on: .weekdays, context: ["place": "office"]),
            RoutineHabit(workout, at: t(18, 0), jitter: 20, on: .on([2, 4, 6]), context: ["place": "gym"]),
            RoutineHabit(tv, at: t(18, 15), jitter: 20, on: .on([1, 3, 5, 7]), context: ["place": "home"]),
        ])],
        steps: [
            .donate(.init("dev", weather, day: 43, at: t(7, 2), context: ["place": "home"])),
            .donate(.init("dev", mail, day: 43, at: t(10, 3), context: ["place": "office"])),
            .check(.init("dev", day: 43, at: t(18, 5), context: ["place": "gym"], expect: workout, reason: "when place=gym")),
            .donate(.init("dev", workout, day: 43, at: t(18, 7), context: ["place": "gym"])),
            .donate(.init("dev", weather, day: 44, at: t(7, 1), context: ["place": "home"])),
            .donate(.init("dev", mail, day: 44, at: t(10, 2), context: ["place": "office"])),
            .check(.init("dev", day: 44, at: t(18, 5), context: ["place": "home"], expect: tv, reason: "when place=home",
                         notReason: "when place=gym")),
        ])

    static let movedCoffee = RoutineScenario(
        "moved-coffee", covers: "habit moved two weeks ago",
        why: "Coffee moved from 07:40 to 08:10 two weeks ago and has stayed there, so 07:44 is news time now and 08:07 coffee time.",
        seed: 27_07,
        users: [RoutineUser("eve", timeZone: "America/Sao_Paulo", start: monday, trainingDays: 42, habits: [
            RoutineHabit(weather, at: t(7, 5), jitter: 10),
            RoutineHabit(news, at: t(7, 50), jitter: 8),
            RoutineHabit(coffee, at: t(7, 40), jitter: 8, on: .weekdays, during: [0 ..< 28]),
            RoutineHabit(coffee, at: t(8, 10), jitter: 8, on: .weekdays, during: [28 ..< 42]),
            RoutineHabit(mail, at: t(13, 0), jitter: 12, on: .weekdays),
        ])],
        steps: [
            .donate(.init("eve", weather, day: 42, at: t(7, 4))),
            .check(.init("eve", day: 42, at: t(7, 44), expect: news)),
            .donate(.init("eve", news, day: 42, at: t(7, 49))),
            .check(.init("eve", day: 42, at: t(8, 7), expect: coffee, reason: "usually 08:")),
        ])

    static let newHabitLive = RoutineScenario(
        "new-habit-live", covers: "new habit after training",
        why: "For the last week (all of it donated after training) this person meditated at 06:30 every morning, so at 06:27 meditation is next.",
        seed: 27_08,
        users: [RoutineUser("finn", timeZone: "Europe/Berlin", start: monday, trainingDays: 28, liveDays: 7, habits: [
            RoutineHabit(weather, at: t(7, 5), jitter: 10),
            RoutineHabit(mail, at: t(13, 0), jitter: 12, on: .weekdays),
            RoutineHabit(reading, at: t(21, 30), jitter: 15),
            RoutineHabit(meditation, at: t(6, 30), jitter: 5, during: [28 ..< 35]),
        ])],
        steps: [
            .check(.init("finn", day: 35, at: t(6, 27), expect: meditation, reason: "lately at this time")),
        ])

    static let holidayGap = RoutineScenario(
        "holiday-gap", covers: "two-week holiday gap",
        why: "Back from a two-week holiday on a Monday, this person's four-week routine resumes: coffee after the weather check, mail at lunch.",
        seed: 27_09,
        users: [RoutineUser("gia", timeZone: "Asia/Tokyo", start: monday, trainingDays: 42, habits: [
            RoutineHabit(weather, at: t(7, 5), jitter: 10, during: [0 ..< 28]),
            RoutineHabit(coffee, at: t(7, 40), jitter: 10, on: .weekdays, during: [0 ..< 28]),
            RoutineHabit(mail, at: t(13, 0), jitter: 12, on: .weekdays, during: [0 ..< 28]),
            RoutineHabit(weather, at: t(8, 45), jitter: 30, during: [28 ..< 42]),
            RoutineHabit(maps, at: t(10, 0), jitter: 60, during: [28 ..< 42]),
            RoutineHabit(camera, at: t(15, 0), jitter: 90, during: [28 ..< 42]),
            RoutineHabit(reading, at: t(21, 30), jitter: 15),
        ])],
        steps: [
            .donate(.init("gia", weather, day: 42, at: t(7, 4))),
            .check(.init("gia", day: 42, at: t(7, 38), expect: coffee)),
            .donate(.init("gia", coffee, day: 42, at: t(7, 41))),
            .check(.init("gia", day: 42, at: t(12, 58), expect: mail)),
        ])

    /// The Pacific clocks go back on Sunday 2026-11-01; the log runs from Monday 2026-10-05 to
    /// Monday 2026-11-02 and the checks are on Tuesday 2026-11-03. One user has the zone configured,
    /// the other only writes offsets (-07:00, then -08:00).
    static let dstLosAngeles: RoutineScenario = {
        func user(_ name: String, configured: Bool) -> RoutineUser {
            RoutineUser(name, timeZone: "America/Los_Angeles", configuresZone: configured, start: RoutineDate(2026, 10, 5), trainingDays: 29, habits: [
                RoutineHabit(weather, at: t(7, 0), jitter: 10),
                RoutineHabit(coffee, at: t(7, 40), jitter: 8),
                RoutineHabit(transit, at: t(8, 40), jitter: 8, on: .weekdays),
                RoutineHabit(reading, at: t(21, 30), jitter: 15),
            ])
        }
        let names = ["hal", "hal-offsets"]
        func each(_ make: (String) -> RoutineStep) -> [RoutineStep] { names.map(make) }
        return RoutineScenario(
            "dst-los-angeles", covers: "DST change",
            why: "Coffee is at 07:40 on the wall clock before and after the clocks go back, so on the Tuesday after, 07:37 is coffee time and 08:37 the commute.",
            seed: 27_10, users: names.map { user($0, configured: $0 == "hal") },
            steps: each { .donate(.init($0, weather, day: 29, at: t(7, 1))) }
                + each { .check(.init($0, day: 29, at: t(7, 37), expect: coffee, reason: "usually 07:")) }
                + each { .donate(.init($0, coffee, day: 29, at: t(7, 41))) }
                + each { .check(.init($0, day: 29, at: t(8, 37), expect: transit, reason: "usually 08:")) })
    }()

    static let tenDonations = RoutineScenario(
        "ten-donations", covers: "sparse user",
        why: "With only ten donations, six of them notes mixed among the others over ten days, the notes app is the sane guess at any ordinary hour.",
        seed: 27_11,
        users: [RoutineUser("ivy", timeZone: "Asia/Kolkata", start: monday, trainingDays: 10, habits: [
            RoutineHabit(notes, at: t(14, 0), jitter: 240, during: [0 ..< 2, 3 ..< 5, 6 ..< 7, 8 ..< 9]),
            RoutineHabit(weather, at: t(8, 0), jitter: 60, during: [2 ..< 3, 5 ..< 6, 9 ..< 10]),
            RoutineHabit(mail, at: t(11, 0), jitter: 30, during: [7 ..< 8]),
        ])],
        steps: [
            .check(.init("ivy", day: 10, at: t(15, 0), expect: notes, reason: "used")),
        ])

    static let noisyUser = RoutineScenario(
        "noisy-user", covers: "noise",
        why: "Half of this person's launches are random apps at random times, but the weekday coffee at 07:40 and the 21:30 reading are as regular as ever.",
        seed: 27_12,
        users: [referenceUser("jo", timeZone: "America/New_York", trainingDays: 42, noise: [
            RoutineNoise(apps: (1 ... 12).map { "com.example.noise\($0)" }, amount: .share(0.5)),
        ])],
        steps: [
            .donate(.init("jo", weather, day: 42, at: t(7, 4))),
            .donate(.init("jo", .open("com.example.noise3"), day: 42, at: t(7, 21))),
            .check(.init("jo", day: 42, at: t(7, 38), expect: coffee)),
            .donate(.init("jo", coffee, day: 42, at: t(7, 42))),
            .donate(.init("jo", mail, day: 42, at: t(13, 1))),
            .donate(.init("jo", .open("com.example.noise8"), day: 42, at: t(17, 12))),
            .check(.init("jo", day: 42, at: t(21, 27), expect: reading, reason: "usually 21:")),
        ])

    static let nightOwl = RoutineScenario(
        "night-owl", covers: "night owl (day boundary)",
        why: "This person plays a game at 23:00 and a podcast at 01:30 every night, so at 01:24 the podcast is next although the calendar day changed.",
        seed: 27_13,
        users: [RoutineUser("kai", timeZone: "Asia/Tokyo", start: monday, trainingDays: 42, habits: [
            RoutineHabit(podcast, at: t(1, 30), jitter: 15),
            RoutineHabit(mail, at: t(10, 30), jitter: 15, on: .weekdays),
            RoutineHabit(music, at: t(17, 0), jitter: 30),
            RoutineHabit(game, at: t(23, 0), jitter: 20),
        ])],
        steps: [
            .check(.init("kai", day: 42, at: t(1, 24), expect: podcast, reason: "usually 01:")),
            .donate(.init("kai", podcast, day: 42, at: t(1, 31))),
            .donate(.init("kai", mail, day: 42, at: t(10, 33))),
            .donate(.init("kai", music, day: 42, at: t(17, 5))),
            .check(.init("kai", day: 42, at: t(22, 56), expect: game, reason: "usually 2")),
        ])

    static let countedWater = RoutineScenario(
        "counted-water", covers: "counts",
        why: "Every evening at 21:00 this person logs the day's eight glasses of water in one line (count 8); notes at 10:00 and the podcast at 15:00 are one use each. A count is how many uses one line stands for, not when the next one comes: water at 20:57, notes at 09:57, although water has eight times their uses.",
        seed: 27_14,
        users: [RoutineUser("lea", timeZone: "Europe/Berlin", start: monday, trainingDays: 42, habits: [
            RoutineHabit(weather, at: t(7, 0), jitter: 10),
            RoutineHabit(notes, at: t(10, 0), jitter: 5),
            RoutineHabit(podcast, at: t(15, 0), jitter: 5),
            RoutineHabit(water, at: t(21, 0), jitter: 5, count: 8),
        ])],
        steps: [
            .donate(.init("lea", weather, day: 42, at: t(7, 2))),
            .check(.init("lea", day: 42, at: t(9, 57), expect: notes)),
            .check(.init("lea", day: 42, at: t(14, 57), expect: podcast)),
            .check(.init("lea", day: 42, at: t(20, 57), expect: water)),
        ])

    static let deletedHabit = RoutineScenario(
        "deleted-habit", covers: "deleted habit",
        why: "The person deleted everything the bank app donated, so the 07:20 bank check is gone: after the weather check, coffee is next and the bank is never named.",
        seed: 27_15,
        users: [RoutineUser("max", timeZone: "America/Sao_Paulo", start: monday, trainingDays: 42, habits: [
            RoutineHabit(weather, at: t(7, 5), jitter: 8),
            RoutineHabit(bank, at: t(7, 20), jitter: 5),
            RoutineHabit(coffee, at: t(7, 40), jitter: 8, on: .weekdays),
            RoutineHabit(mail, at: t(13, 0), jitter: 12, on: .weekdays),
        ])],
        steps: [
            .deleteApp(user: "max", app: bank.app),
            .donate(.init("max", weather, day: 42, at: t(7, 4))),
            .check(.init("max", day: 42, at: t(7, 22), expect: coffee, notReason: bank.app, absent: [bank])),
            .check(.init("max", day: 42, at: t(7, 38), expect: coffee, notReason: bank.app, absent: [bank])),
        ])

    static let twoUsers = RoutineScenario(
        "two-users", covers: "per user and zone",
        why: "Two people in one store, in Tokyo and London: at 07:38 local after the weather check one orders coffee, the other tea, and neither inherits the other's habit.",
        seed: 27_16,
        users: [
            RoutineUser("nora", timeZone: "Asia/Tokyo", start: monday, trainingDays: 42, habits: [
                RoutineHabit(weather, at: t(7, 5), jitter: 10), RoutineHabit(coffee, at: t(7, 40), jitter: 8),
                RoutineHabit(reading, at: t(21, 30), jitter: 15),
            ]),
            RoutineUser("omar", timeZone: "Europe/London", start: monday, trainingDays: 42, habits: [
                RoutineHabit(weather, at: t(7, 5), jitter: 10), RoutineHabit(tea, at: t(7, 40), jitter: 8),
                RoutineHabit(reading, at: t(21, 30), jitter: 15),
            ]),
        ],
        steps: [
            .donate(.init("nora", weather, day: 42, at: t(7, 4))),
            .check(.init("nora", day: 42, at: t(7, 38), expect: coffee, notReason: tea.summary, absent: [tea])),
            .donate(.init("omar", weather, day: 42, at: t(7, 4))),
            .check(.init("omar", day: 42, at: t(7, 38), expect: tea, notReason: coffee.summary, absent: [coffee])),
        ])
}
