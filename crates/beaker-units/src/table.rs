//! The unit table: every unit as an exact factor to SI base units (a rational times a power of π), its
//! dimension, whether SI prefixes apply, and, for temperatures on a shifted scale, its offset.
//!
//! Factors are written as products and quotients of decimals (`"0.45359237*9.80665"`), each exact by
//! definition (SI 2019, NIST SP 811, the international yard and pound of 1959); they are parsed into rationals
//! once. Ambiguous symbols resolve as Pint does, with a note for the caller.

/// Exponents of the base dimensions, in the order of [`BASE`].
pub type Dims = [i8; 9];

/// The base dimensions and their SI (or chosen) base units. Angle is a dimension of its own, so `rpm` never
/// silently becomes `Hz` with a factor of 2π (Pint treats radians as dimensionless).
pub const BASE: [(&str, &str); 9] = [
    ("length", "m"),
    ("mass", "kg"),
    ("time", "s"),
    ("current", "A"),
    ("temperature", "K"),
    ("amount of substance", "mol"),
    ("luminous intensity", "cd"),
    ("information", "bit"),
    ("angle", "rad"),
];

#[allow(
    clippy::too_many_arguments,
    reason = "one argument per base dimension, in BASE order, reads like the table it builds"
)]
const fn d(l: i8, m: i8, t: i8, i: i8, th: i8, n: i8, j: i8, b: i8, a: i8) -> Dims {
    [l, m, t, i, th, n, j, b, a]
}

/// No dimension (a pure number).
pub const NONE: Dims = d(0, 0, 0, 0, 0, 0, 0, 0, 0);
/// Length (m).
pub const LEN: Dims = d(1, 0, 0, 0, 0, 0, 0, 0, 0);
/// Mass (kg).
pub const MASS: Dims = d(0, 1, 0, 0, 0, 0, 0, 0, 0);
/// Time (s).
pub const TIME: Dims = d(0, 0, 1, 0, 0, 0, 0, 0, 0);
/// Electric current (A).
pub const CURRENT: Dims = d(0, 0, 0, 1, 0, 0, 0, 0, 0);
/// Temperature (K).
pub const TEMP: Dims = d(0, 0, 0, 0, 1, 0, 0, 0, 0);
/// Amount of substance (mol).
pub const AMOUNT: Dims = d(0, 0, 0, 0, 0, 1, 0, 0, 0);
/// Luminous intensity (cd).
pub const LUM: Dims = d(0, 0, 0, 0, 0, 0, 1, 0, 0);
/// Information (bit).
pub const INFO: Dims = d(0, 0, 0, 0, 0, 0, 0, 1, 0);
/// Angle (rad).
pub const ANGLE: Dims = d(0, 0, 0, 0, 0, 0, 0, 0, 1);
/// Frequency (1/s).
pub const FREQ: Dims = d(0, 0, -1, 0, 0, 0, 0, 0, 0);
/// Force (N).
pub const FORCE: Dims = d(1, 1, -2, 0, 0, 0, 0, 0, 0);
/// Energy (J).
pub const ENERGY: Dims = d(2, 1, -2, 0, 0, 0, 0, 0, 0);
/// Power (W).
pub const POWER: Dims = d(2, 1, -3, 0, 0, 0, 0, 0, 0);
/// Pressure (Pa).
pub const PRESSURE: Dims = d(-1, 1, -2, 0, 0, 0, 0, 0, 0);
/// Speed (m/s).
pub const SPEED: Dims = d(1, 0, -1, 0, 0, 0, 0, 0, 0);
/// Volume (m³).
pub const VOLUME: Dims = d(3, 0, 0, 0, 0, 0, 0, 0, 0);
/// Area (m²).
pub const AREA: Dims = d(2, 0, 0, 0, 0, 0, 0, 0, 0);
/// Electric charge (C).
pub const CHARGE: Dims = d(0, 0, 1, 1, 0, 0, 0, 0, 0);
/// Voltage (V).
pub const VOLTAGE: Dims = d(2, 1, -3, -1, 0, 0, 0, 0, 0);
/// Resistance (Ω).
pub const RESISTANCE: Dims = d(2, 1, -3, -2, 0, 0, 0, 0, 0);
/// Amount concentration (mol/m³).
pub const CONCENTRATION: Dims = d(-3, 0, 0, 0, 0, 1, 0, 0, 0);
/// Angular speed (rad/s).
pub const ANGULAR_SPEED: Dims = d(0, 0, -1, 0, 0, 0, 0, 0, 1);
/// Capacitance (F).
pub const CAPACITANCE: Dims = d(-2, -1, 4, 2, 0, 0, 0, 0, 0);
/// Conductance (S).
pub const CONDUCTANCE: Dims = d(-2, -1, 3, 2, 0, 0, 0, 0, 0);
/// Magnetic flux (Wb).
pub const MAGNETIC_FLUX: Dims = d(2, 1, -2, -1, 0, 0, 0, 0, 0);
/// Magnetic flux density (T).
pub const FLUX_DENSITY: Dims = d(0, 1, -2, -1, 0, 0, 0, 0, 0);
/// Inductance (H).
pub const INDUCTANCE: Dims = d(2, 1, -2, -2, 0, 0, 0, 0, 0);
/// The steradian is a squared radian here (angle is a dimension, see [`BASE`]).
pub const SOLID_ANGLE: Dims = d(0, 0, 0, 0, 0, 0, 0, 0, 2);
/// Luminous flux (lm = cd·sr).
pub const LUMINOUS_FLUX: Dims = d(0, 0, 0, 0, 0, 0, 1, 0, 2);
/// Illuminance (lx).
pub const ILLUMINANCE: Dims = d(-2, 0, 0, 0, 0, 0, 1, 0, 2);
/// Absorbed and equivalent dose (gray, sievert): J/kg.
pub const DOSE: Dims = d(2, 0, -2, 0, 0, 0, 0, 0, 0);
/// Catalytic activity (kat).
pub const CATALYTIC_ACTIVITY: Dims = d(0, 0, -1, 0, 0, 1, 0, 0, 0);
/// Data rate (bit/s).
pub const DATA_RATE: Dims = d(0, 0, -1, 0, 0, 0, 0, 1, 0);
/// Dynamic viscosity (Pa·s).
pub const VISCOSITY: Dims = d(-1, 1, -1, 0, 0, 0, 0, 0, 0);
/// Kinematic viscosity (m²/s).
pub const KINEMATIC_VISCOSITY: Dims = d(2, 0, -1, 0, 0, 0, 0, 0, 0);

/// Names for the dimensions people call by name (used in results and errors).
pub const NAMED: &[(Dims, &str)] = &[
    (NONE, "dimensionless"),
    (LEN, "length"),
    (MASS, "mass"),
    (TIME, "time"),
    (CURRENT, "current"),
    (TEMP, "temperature"),
    (AMOUNT, "amount of substance"),
    (LUM, "luminous intensity"),
    (INFO, "information"),
    (ANGLE, "angle"),
    (FREQ, "frequency"),
    (FORCE, "force"),
    (ENERGY, "energy"),
    (POWER, "power"),
    (PRESSURE, "pressure"),
    (SPEED, "speed"),
    (d(1, 0, -2, 0, 0, 0, 0, 0, 0), "acceleration"),
    (VOLUME, "volume"),
    (AREA, "area"),
    (d(-3, 1, 0, 0, 0, 0, 0, 0, 0), "density"),
    (CHARGE, "charge"),
    (VOLTAGE, "voltage"),
    (RESISTANCE, "resistance"),
    (CONCENTRATION, "concentration"),
    (ANGULAR_SPEED, "angular speed"),
    (DATA_RATE, "data rate"),
    (CAPACITANCE, "capacitance"),
    (CONDUCTANCE, "conductance"),
    (MAGNETIC_FLUX, "magnetic flux"),
    (FLUX_DENSITY, "magnetic flux density"),
    (INDUCTANCE, "inductance"),
    (SOLID_ANGLE, "solid angle"),
    (LUMINOUS_FLUX, "luminous flux"),
    (ILLUMINANCE, "illuminance"),
    (DOSE, "dose (J/kg)"),
    (CATALYTIC_ACTIVITY, "catalytic activity"),
    (VISCOSITY, "dynamic viscosity"),
    (KINEMATIC_VISCOSITY, "kinematic viscosity"),
];

/// Which prefixes a unit takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefixes {
    /// None (`h`, `°C`).
    None,
    /// Every SI prefix.
    Si,
    /// Data units: the SI multiples from kilo up and the binary prefixes (`Ki`, `Mi`, …). A millibyte means
    /// nothing, and leaving it out keeps `mb`, `MB` and `Mb` apart under the case rule.
    Data,
    /// Milli and below only (molar: `mM`, `µM`, `nM`); `kM`, `MM` and `cM` are not used, and leaving them out
    /// keeps `KM` and `CM` unambiguous under the case rule.
    Small,
}

impl Prefixes {
    /// Whether a prefix (a power of ten, or a binary prefix) applies.
    pub fn takes(self, power_of_ten: i32, binary: bool) -> bool {
        match self {
            Prefixes::None => false,
            Prefixes::Si => !binary,
            Prefixes::Data => binary || power_of_ten >= 3,
            Prefixes::Small => !binary && power_of_ten <= -3,
        }
    }
}

/// One unit.
pub struct Def {
    /// Symbols and aliases, matched case-sensitively (`m`, `km` is a prefix of it).
    pub symbols: &'static [&'static str],
    /// Long names, matched case-insensitively, also in the plural (`meter`, `metre`).
    pub names: &'static [&'static str],
    /// The factor to SI base units as a product/quotient of exact decimals.
    pub factor: &'static str,
    /// Power of π in the factor (angles: a degree is π/180 rad).
    pub pi: i8,
    /// Its dimension.
    pub dims: Dims,
    /// Which prefixes it takes.
    pub prefixes: Prefixes,
    /// For a temperature on a shifted scale: kelvin = (value + offset) × factor.
    pub offset: Option<&'static str>,
    /// Said in the result's `notes` when this unit is used (ambiguous symbols).
    pub note: Option<&'static str>,
}

const fn unit(
    symbols: &'static [&'static str],
    names: &'static [&'static str],
    factor: &'static str,
    dims: Dims,
) -> Def {
    Def {
        symbols,
        names,
        factor,
        pi: 0,
        dims,
        prefixes: Prefixes::None,
        offset: None,
        note: None,
    }
}

const fn si(
    symbols: &'static [&'static str],
    names: &'static [&'static str],
    factor: &'static str,
    dims: Dims,
) -> Def {
    Def {
        prefixes: Prefixes::Si,
        ..unit(symbols, names, factor, dims)
    }
}

const fn data(
    symbols: &'static [&'static str],
    names: &'static [&'static str],
    factor: &'static str,
    dims: Dims,
) -> Def {
    Def {
        prefixes: Prefixes::Data,
        ..unit(symbols, names, factor, dims)
    }
}

const fn noted(def: Def, note: &'static str) -> Def {
    Def {
        note: Some(note),
        ..def
    }
}

const fn angle(
    symbols: &'static [&'static str],
    names: &'static [&'static str],
    factor: &'static str,
) -> Def {
    Def {
        pi: 1,
        ..unit(symbols, names, factor, ANGLE)
    }
}

/// Standard gravity (exact, CGPM 1901), used by the force and pressure units below.
const LBF: &str = "0.45359237*9.80665";

/// Every unit. Order matters only for suggestions (earlier first on ties).
pub const UNITS: &[Def] = &[
    // length
    si(&["m"], &["meter", "metre"], "1", LEN),
    unit(&["in", "inch", "\""], &["inch"], "0.0254", LEN),
    unit(&["ft", "'"], &["foot", "feet"], "0.3048", LEN),
    unit(&["yd"], &["yard"], "0.9144", LEN),
    unit(&["mi"], &["mile"], "1609.344", LEN),
    unit(&["nmi"], &["nautical_mile"], "1852", LEN),
    unit(&["au", "AU"], &["astronomical_unit"], "149597870700", LEN),
    unit(
        &["ly"],
        &["light_year", "lightyear"],
        "299792458*31557600",
        LEN,
    ),
    Def {
        pi: -1,
        ..unit(&["pc"], &["parsec"], "149597870700*648000", LEN)
    },
    unit(&["Å", "angstrom"], &["angstrom", "ångström"], "1e-10", LEN),
    unit(&["micron"], &["micron"], "1e-6", LEN),
    unit(&["mil", "thou"], &[], "0.0000254", LEN),
    // mass
    si(&["g"], &["gram", "gramme"], "0.001", MASS),
    noted(
        unit(&["t"], &["tonne", "metric_ton"], "1000", MASS),
        "t is the metric tonne (1000 kg)",
    ),
    unit(&["lb", "lbs", "lbm"], &["pound"], "0.45359237", MASS),
    noted(
        unit(&["oz"], &["ounce"], "0.45359237/16", MASS),
        "oz is the avoirdupois ounce (mass); use floz for volume",
    ),
    noted(
        unit(&["ton"], &["ton", "short_ton"], "907.18474", MASS),
        "ton is the US short ton (2000 lb); use tonne for 1000 kg",
    ),
    unit(&["long_ton"], &["long_ton"], "1016.0469088", MASS),
    unit(&["st"], &["stone"], "6.35029318", MASS),
    unit(&["gr"], &["grain"], "0.00006479891", MASS),
    // The CODATA 2022 atomic mass constant, as in Pint 0.26.
    si(&["Da", "amu"], &["dalton"], "1.66053906892e-27", MASS),
    unit(
        &["u"],
        &["unified_atomic_mass_unit", "atomic_mass_unit"],
        "1.66053906892e-27",
        MASS,
    ),
    // time
    si(&["s", "sec", "secs"], &["second"], "1", TIME),
    unit(&["min", "mins"], &["minute"], "60", TIME),
    unit(&["h", "hr", "hrs"], &["hour"], "3600", TIME),
    unit(&["d"], &["day"], "86400", TIME),
    unit(&["wk"], &["week"], "604800", TIME),
    unit(&["fortnight"], &["fortnight"], "1209600", TIME),
    // `Gyr`, `Myr`, `kyr` take prefixes; `a` does not (`Pa` is the pascal).
    noted(
        si(&["yr"], &["year", "julian_year"], "31557600", TIME),
        "a year is the Julian year (365.25 days)",
    ),
    noted(
        unit(&["a"], &["annum"], "31557600", TIME),
        "a year is the Julian year (365.25 days)",
    ),
    unit(&["month"], &["month"], "2629800", TIME),
    // current, amount, luminous intensity
    si(&["A"], &["ampere", "amp"], "1", CURRENT),
    si(&["mol"], &["mole"], "1", AMOUNT),
    si(&["cd"], &["candela"], "1", LUM),
    // temperature
    si(&["K"], &["kelvin"], "1", TEMP),
    // `C` and `F` alone mean coulomb and farad; next to a temperature they mean °C and °F (see mod.rs).
    Def {
        offset: Some("273.15"),
        ..unit(
            &["degC", "°C", "℃"],
            &["celsius", "centigrade", "degree_celsius", "deg_c"],
            "1",
            TEMP,
        )
    },
    Def {
        offset: Some("459.67"),
        ..unit(
            &["degF", "°F", "℉"],
            &["fahrenheit", "degree_fahrenheit", "deg_f"],
            "5/9",
            TEMP,
        )
    },
    unit(
        &["degR", "°R", "R"],
        &["rankine", "degree_rankine"],
        "5/9",
        TEMP,
    ),
    unit(
        &["delta_degC", "ΔdegC", "Δ°C"],
        &["delta_celsius"],
        "1",
        TEMP,
    ),
    unit(
        &["delta_degF", "ΔdegF", "Δ°F"],
        &["delta_fahrenheit"],
        "5/9",
        TEMP,
    ),
    // information (IEC 80000-13: 1 B = 8 bit; kB = 1000 B, KiB = 1024 B)
    data(&["bit", "bits"], &["bit"], "1", INFO),
    noted(
        data(&["b"], &[], "1", INFO),
        "b is read as the bit (Mb = megabit, as in Mb/s); B is the byte",
    ),
    data(&["B"], &["byte", "octet"], "8", INFO),
    data(&["bps"], &[], "1", DATA_RATE),
    data(&["Bps"], &[], "8", DATA_RATE),
    // ratios
    unit(&["%"], &["percent"], "0.01", NONE),
    unit(&["‰"], &["permille", "per_mille"], "0.001", NONE),
    unit(&["ppm"], &["parts_per_million"], "1e-6", NONE),
    unit(&["ppb"], &["parts_per_billion"], "1e-9", NONE),
    noted(
        unit(&["ppt"], &["parts_per_trillion"], "1e-12", NONE),
        "ppt is parts per trillion (1e-12); per thousand is ‰ (permille)",
    ),
    // angle
    noted(
        si(&["rad"], &["radian"], "1", ANGLE),
        "rad is the radian (angle), not the radiation dose",
    ),
    angle(
        &["deg", "°"],
        &["degree", "degree_angle", "arcdeg"],
        "1/180",
    ),
    angle(&["arcmin", "′"], &["arcminute", "minute_of_arc"], "1/10800"),
    angle(
        &["arcsec", "″"],
        &["arcsecond", "second_of_arc"],
        "1/648000",
    ),
    angle(&["rev", "turn"], &["revolution", "turn", "cycle"], "2"),
    angle(&["grad", "gon"], &["gradian", "grade"], "1/200"),
    // derived SI
    si(&["Hz"], &["hertz"], "1", FREQ),
    Def {
        pi: 1,
        ..unit(&["rpm"], &["revolutions_per_minute"], "1/30", ANGULAR_SPEED)
    },
    Def {
        pi: 1,
        ..unit(&["rps"], &["revolutions_per_second"], "2", ANGULAR_SPEED)
    },
    si(&["N"], &["newton"], "1", FORCE),
    si(&["J"], &["joule"], "1", ENERGY),
    noted(
        unit(&["Nm"], &["newton_meter", "newton_metre"], "1", ENERGY),
        "Nm is read as the newton-metre (N·m), not nanometres (nm)",
    ),
    si(&["W"], &["watt"], "1", POWER),
    si(&["Pa"], &["pascal"], "1", PRESSURE),
    si(&["C"], &["coulomb"], "1", CHARGE),
    si(&["V"], &["volt"], "1", VOLTAGE),
    si(&["Ω", "ohm"], &["ohm"], "1", RESISTANCE),
    // The other named SI derived units (SI brochure, 9th ed., table 4). `F` alone is the farad and `T` the tesla
    // (tera needs a unit after it: `Tm` is the terametre); `F` next to a temperature is °F (mod.rs).
    si(&["F"], &["farad"], "1", CAPACITANCE),
    si(&["S"], &["siemens", "mho"], "1", CONDUCTANCE),
    si(&["Wb"], &["weber"], "1", MAGNETIC_FLUX),
    si(&["T"], &["tesla"], "1", FLUX_DENSITY),
    si(&["H"], &["henry"], "1", INDUCTANCE),
    si(&["sr"], &["steradian"], "1", SOLID_ANGLE),
    si(&["lm"], &["lumen"], "1", LUMINOUS_FLUX),
    si(&["lx"], &["lux"], "1", ILLUMINANCE),
    si(&["Bq"], &["becquerel"], "1", FREQ),
    si(&["Gy"], &["gray"], "1", DOSE),
    si(&["Sv"], &["sievert"], "1", DOSE),
    si(&["kat"], &["katal"], "1", CATALYTIC_ACTIVITY),
    si(&["Ci"], &["curie"], "3.7e10", FREQ),
    // CGS: 1 G = 1e-4 T by convention (SI Brochure, 8th ed., table 9), not through µ0 (Pint keeps the gauss in
    // Gaussian dimensions). `G` before a unit is giga; `Gy` is the gray.
    noted(
        si(&["G"], &["gauss"], "1e-4", FLUX_DENSITY),
        "G alone is the gauss (1e-4 T); G before a unit is giga, and Gy is the gray",
    ),
    si(&["P"], &["poise"], "0.1", VISCOSITY),
    si(&["St"], &["stokes"], "1e-4", KINEMATIC_VISCOSITY),
    si(&["L", "l"], &["liter", "litre"], "0.001", VOLUME),
    noted(
        Def {
            prefixes: Prefixes::Small,
            ..unit(&["M"], &["molar"], "1000", CONCENTRATION)
        },
        "M is molar (mol/L)",
    ),
    // force, energy, power, pressure
    unit(&["dyn"], &["dyne"], "1e-5", FORCE),
    unit(&["lbf"], &["pound_force"], LBF, FORCE),
    unit(
        &["kgf", "kp"],
        &["kilogram_force", "kilopond"],
        "9.80665",
        FORCE,
    ),
    unit(&["kip"], &["kip"], "0.45359237*9.80665*1000", FORCE),
    noted(
        si(&["cal"], &["calorie"], "4.184", ENERGY),
        "cal is the thermochemical calorie (4.184 J)",
    ),
    // The food Calorie, written with a capital C: a kilocalorie. Symbols are matched case-sensitively before
    // names, so `Calorie` is this and `calorie` the small one (Pint has no `Cal`: it was read as cal, 1000x off).
    noted(
        unit(&["Cal", "Calorie", "Calories"], &["food_calorie", "large_calorie"], "4184", ENERGY),
        "Cal (Calorie, capital C) is the food calorie, a kilocalorie (4184 J)",
    ),
    si(
        &["eV"],
        &["electronvolt", "electron_volt"],
        "1.602176634e-19",
        ENERGY,
    ),
    si(&["Wh"], &["watt_hour"], "3600", ENERGY),
    unit(&["erg"], &["erg"], "1e-7", ENERGY),
    // Atomic units from CODATA 2022 as in Pint 0.26 (h and c exact, R∞ = 10973731.568157 /m): Ry = h·c·R∞,
    // Eh = 2 Ry.
    si(
        &["Ry"],
        &["rydberg"],
        "6.62607015e-34*299792458*10973731.568157",
        ENERGY,
    ),
    si(
        &["Eh", "E_h"],
        &["hartree"],
        "2*6.62607015e-34*299792458*10973731.568157",
        ENERGY,
    ),
    noted(
        unit(
            &["BTU", "Btu"],
            &["british_thermal_unit"],
            "1055.056",
            ENERGY,
        ),
        "BTU is the ISO Btu (1055.056 J), Pint's default; Btu_it is the International Table Btu",
    ),
    unit(&["Btu_it", "BTU_it"], &[], "1055.05585262", ENERGY),
    unit(&["thm"], &["therm"], "105505585.262", ENERGY),
    noted(
        unit(
            &["hp"],
            &["horsepower"],
            "550*0.3048*0.45359237*9.80665",
            POWER,
        ),
        "hp is mechanical horsepower (550 ft·lbf/s ≈ 745.7 W)",
    ),
    si(&["bar"], &["bar"], "100000", PRESSURE),
    unit(
        &["atm"],
        &["atmosphere", "standard_atmosphere"],
        "101325",
        PRESSURE,
    ),
    unit(
        &["psi"],
        &["pound_force_per_square_inch"],
        "0.45359237*9.80665/0.00064516",
        PRESSURE,
    ),
    unit(
        &["mmHg"],
        &["millimeter_Hg", "millimeter_of_mercury"],
        "0.001*13595.1*9.80665",
        PRESSURE,
    ),
    unit(&["Torr", "torr"], &["torr"], "101325/760", PRESSURE),
    unit(
        &["inHg"],
        &["inch_Hg", "inch_of_mercury"],
        "0.0254*13595.1*9.80665",
        PRESSURE,
    ),
    // speed
    unit(
        &["mph"],
        &["mile_per_hour", "miles_per_hour"],
        "1609.344/3600",
        SPEED,
    ),
    unit(&["kph", "kmh", "kmph"], &[], "1000/3600", SPEED),
    unit(&["kn", "kt"], &["knot"], "1852/3600", SPEED),
    // The speed of light as a unit, as Pint has it (`MeV/c^2` is a mass); `C` is still the coulomb.
    unit(
        &["c"],
        &["speed_of_light", "speed_of_light_in_vacuum"],
        "299792458",
        SPEED,
    ),
    unit(&["fps"], &[], "0.3048", SPEED),
    // volume, area
    unit(&["cc"], &["cubic_centimeter"], "1e-6", VOLUME),
    noted(
        unit(&["gal"], &["gallon"], "0.003785411784", VOLUME),
        "gal is the US liquid gallon (3.785411784 L)",
    ),
    unit(&["qt"], &["quart"], "0.003785411784/4", VOLUME),
    unit(&["pt"], &["pint"], "0.003785411784/8", VOLUME),
    unit(&["cup"], &["cup"], "0.003785411784/16", VOLUME),
    unit(
        &["floz", "fl_oz"],
        &["fluid_ounce", "fl_oz"],
        "0.003785411784/128",
        VOLUME,
    ),
    unit(&["tbsp"], &["tablespoon"], "0.003785411784/256", VOLUME),
    unit(&["tsp"], &["teaspoon"], "0.003785411784/768", VOLUME),
    unit(
        &["bbl"],
        &["barrel", "oil_barrel"],
        "0.003785411784*42",
        VOLUME,
    ),
    unit(&["ha"], &["hectare"], "10000", AREA),
    noted(
        unit(&["acre"], &["acre"], "4046.8564224", AREA),
        "acre is the international acre (43560 ft² = 4046.8564224 m²); the US survey acre is survey_acre",
    ),
    unit(
        &[],
        &["survey_acre", "us_survey_acre"],
        "43560*1200/3937*1200/3937",
        AREA,
    ),
    unit(&["are"], &["are"], "100", AREA),
    // charge
    si(&["Ah"], &["ampere_hour", "amp_hour"], "3600", CHARGE),
];

/// SI prefixes (symbol, long name, power of ten); longest symbols first so `da` wins over `d`.
pub const SI_PREFIXES: &[(&str, &str, i32)] = &[
    ("da", "deca", 1),
    ("Q", "quetta", 30),
    ("R", "ronna", 27),
    ("Y", "yotta", 24),
    ("Z", "zetta", 21),
    ("E", "exa", 18),
    ("P", "peta", 15),
    ("T", "tera", 12),
    ("G", "giga", 9),
    ("M", "mega", 6),
    ("k", "kilo", 3),
    ("h", "hecto", 2),
    ("d", "deci", -1),
    ("c", "centi", -2),
    ("m", "milli", -3),
    ("µ", "micro", -6),
    ("u", "micro", -6),
    ("n", "nano", -9),
    ("p", "pico", -12),
    ("f", "femto", -15),
    ("a", "atto", -18),
    ("z", "zepto", -21),
    ("y", "yocto", -24),
    ("r", "ronto", -27),
    ("q", "quecto", -30),
];

/// Binary prefixes for data units (symbol, long name, power of 2).
pub const BINARY_PREFIXES: &[(&str, &str, u32)] = &[
    ("Ki", "kibi", 10),
    ("Mi", "mebi", 20),
    ("Gi", "gibi", 30),
    ("Ti", "tebi", 40),
    ("Pi", "pebi", 50),
    ("Ei", "exbi", 60),
];

/// The molar gas constant, J/(mol·K): N_A·k, exact since the 2019 SI (`chemistry`'s gas laws, `physics`'
/// thermal forms).
pub const GAS_CONSTANT: f64 = 8.314_462_618_153_24;
