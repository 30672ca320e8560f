//! The metrics Beaker knows by name: what each is called in Apple Health and CGM exports, the unit its values
//! are stored in, and how a day's samples make one value.

/// How a period's samples make one value when a query does not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Amounts that add up over a period (steps, energy, minutes of exercise, hours asleep): summed.
    Cumulative,
    /// Readings of a level (heart rate, glucose, weight): averaged.
    Level,
}

/// One known metric.
#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// Its name in queries (seed 002's spelling).
    pub name: &'static str,
    /// The unit its values are stored and answered in (the unit engine's spelling).
    pub unit: &'static str,
    /// How a period's samples combine.
    pub kind: Kind,
    /// Apple Health's type identifiers that import as it.
    pub apple: &'static [&'static str],
    /// What it is, for the tools' descriptions and errors.
    pub about: &'static str,
}

impl Metric {
    /// The aggregation a period of this metric takes when none is asked for.
    pub fn natural(&self) -> crate::Aggregation {
        match self.kind {
            Kind::Cumulative => crate::Aggregation::Sum,
            Kind::Level => crate::Aggregation::Avg,
        }
    }

    /// Whether a day of it runs from noon to noon (a night belongs to the evening it starts on).
    pub fn by_night(&self) -> bool {
        self.name == "sleep"
    }
}

/// Every metric with a name of its own. A metric imported under another name (a generic CSV's) is a level.
pub const METRICS: &[Metric] = &[
    Metric {
        name: "heartRate",
        unit: "count/min",
        kind: Kind::Level,
        apple: &["HKQuantityTypeIdentifierHeartRate"],
        about: "heart rate",
    },
    Metric {
        name: "restingHeartRate",
        unit: "count/min",
        kind: Kind::Level,
        apple: &["HKQuantityTypeIdentifierRestingHeartRate"],
        about: "resting heart rate",
    },
    Metric {
        name: "walkingHeartRate",
        unit: "count/min",
        kind: Kind::Level,
        apple: &["HKQuantityTypeIdentifierWalkingHeartRateAverage"],
        about: "walking heart rate average",
    },
    Metric {
        name: "hrv",
        unit: "ms",
        kind: Kind::Level,
        apple: &["HKQuantityTypeIdentifierHeartRateVariabilitySDNN"],
        about: "heart rate variability (SDNN)",
    },
    Metric {
        name: "steps",
        unit: "count",
        kind: Kind::Cumulative,
        apple: &["HKQuantityTypeIdentifierStepCount"],
        about: "steps",
    },
    Metric {
        name: "distance",
        unit: "km",
        kind: Kind::Cumulative,
        apple: &["HKQuantityTypeIdentifierDistanceWalkingRunning"],
        about: "walking and running distance",
    },
    Metric {
        name: "activeEnergyBurned",
        unit: "kcal",
        kind: Kind::Cumulative,
        apple: &["HKQuantityTypeIdentifierActiveEnergyBurned"],
        about: "active energy",
    },
    Metric {
        name: "basalEnergyBurned",
        unit: "kcal",
        kind: Kind::Cumulative,
        apple: &["HKQuantityTypeIdentifierBasalEnergyBurned"],
        about: "resting energy",
    },
    Metric {
        name: "exerciseMinutes",
        unit: "min",
        kind: Kind::Cumulative,
        apple: &["HKQuantityTypeIdentifierAppleExerciseTime"],
        about: "minutes of exercise",
    },
    Metric {
        name: "flightsClimbed",
        unit: "count",
        kind: Kind::Cumulative,
        apple: &["HKQuantityTypeIdentifierFlightsClimbed"],
        about: "flights of stairs climbed",
    },
    Metric {
        name: "sleep",
        unit: "h",
        kind: Kind::Cumulative,
        apple: &["HKCategoryTypeIdentifierSleepAnalysis"],
        about: "hours asleep (a night, noon to noon, belongs to the day it starts on)",
    },
    Metric {
        name: "vo2max",
        unit: "mL/(kg*min)",
        kind: Kind::Level,
        apple: &["HKQuantityTypeIdentifierVO2Max"],
        about: "VO2 max",
    },
    Metric {
        name: "glucose",
        unit: "mg/dL",
        kind: Kind::Level,
        apple: &["HKQuantityTypeIdentifierBloodGlucose"],
        about: "blood glucose (CGM or meter)",
    },
    Metric {
        name: "weight",
        unit: "kg",
        kind: Kind::Level,
        apple: &["HKQuantityTypeIdentifierBodyMass"],
        about: "body mass",
    },
    Metric {
        name: "bodyFatPercentage",
        unit: "%",
        kind: Kind::Level,
        apple: &["HKQuantityTypeIdentifierBodyFatPercentage"],
        about: "body fat percentage",
    },
    Metric {
        name: "oxygenSaturation",
        unit: "%",
        kind: Kind::Level,
        apple: &["HKQuantityTypeIdentifierOxygenSaturation"],
        about: "blood oxygen saturation",
    },
    Metric {
        name: "respiratoryRate",
        unit: "count/min",
        kind: Kind::Level,
        apple: &["HKQuantityTypeIdentifierRespiratoryRate"],
        about: "respiratory rate",
    },
    Metric {
        name: "bodyTemperature",
        unit: "degC",
        kind: Kind::Level,
        apple: &["HKQuantityTypeIdentifierBodyTemperature"],
        about: "body temperature",
    },
];

/// The known metric called `name`.
pub fn metric(name: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.name == name)
}

/// The known metric Apple Health calls `identifier`.
pub fn apple(identifier: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.apple.contains(&identifier))
}

/// How a period of `name` combines when no aggregation is asked for (a metric not in [`METRICS`] is a level).
pub fn natural(name: &str) -> crate::Aggregation {
    metric(name).map_or(crate::Aggregation::Avg, Metric::natural)
}

/// Apple Health's sleep stages that count as asleep (in bed and awake do not).
pub const ASLEEP: &[&str] = &[
    "HKCategoryValueSleepAnalysisAsleep",
    "HKCategoryValueSleepAnalysisAsleepUnspecified",
    "HKCategoryValueSleepAnalysisAsleepCore",
    "HKCategoryValueSleepAnalysisAsleepDeep",
    "HKCategoryValueSleepAnalysisAsleepREM",
];
