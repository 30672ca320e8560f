//! The `physics` tool's `ToolSpec`: params and result schemas, examples, and the notes in `physics.md`.

use super::KEYS;
use beaker_core::operations::example;
use beaker_core::ToolSpec;
use serde_json::{json, Value};

/// The physics tool's spec.
pub(super) fn spec() -> ToolSpec {
    let q = |what: &str| json!({"type": ["number", "string"], "description": what});
    let list = |what: &str| json!({"type": "array", "items": {"type": ["number", "string"]}, "minItems": 1, "maxItems": 10000, "description": what});
    let number = |what: &str| json!({"type": ["number", "string"], "description": what});
    let operations: Vec<&str> = KEYS.iter().map(|(name, _)| *name).collect();
    ToolSpec {
        name: "physics".into(),
        description: "Physics by closed forms, every quantity a number in SI or a string with a unit (\"72 km/h\", \
            \"30 deg\", \"25 degC\", \"4.7 uF\"), checked for its dimension, results in SI with a `units` map. \
            Mechanics: kinematics (any three of u, v, a, t, s; both motions when two fit), projectile, \
            circular_motion, gravitation, orbit, collision (elastic, perfectly inelastic, restitution), work, \
            kinetic_energy, potential_energy, power. Thermodynamics: heat, gas_process (isothermal, adiabatic, \
            isobaric, isochoric), carnot, conduction. Circuits: resistors (series, parallel, or a network between \
            two nodes, exact), capacitors, inductors, ohm, rc_circuit, rl_circuit. Optics and waves: thin_lens, \
            mirror, snell, wave, doppler. Bare angles are degrees; constants are CODATA 2022, g = 9.80665 m/s²."
            .into(),
        params_schema: {
            // In parts: one `json!` this size overflows the macro's recursion limit.
            let mut properties = serde_json::Map::new();
            for part in [json!({
                "operation": {"enum": operations, "description": "What to compute; each operation reads only its own keys (see the notes)."},
                "known": {"type": "object", "properties": {"u": q("initial velocity"), "v": q("final velocity"), "a": q("acceleration"), "t": q("time"), "s": q("displacement")}, "additionalProperties": false, "description": "kinematics: three or more of u, v, a, t, s."},
                "find": {"anyOf": [{"enum": ["u", "v", "a", "t", "s"]}, {"type": "array", "items": {"enum": ["u", "v", "a", "t", "s"]}}], "description": "kinematics: the quantities to report (default all)."},
                "velocity": q("Speed (m/s): projectile launch speed, circular_motion, kinetic_energy, power with force."),
                "angle": q("Angle (bare numbers are degrees; \"0.5 rad\"): projectile elevation, work (force to displacement), snell incidence."),
                "height": q("Height (m): projectile launch height above the landing level; potential_energy."),
                "g": q("Gravitational acceleration (m/s², default 9.80665)."),
                "radius": q("Radius (m): circular_motion, orbit (from the centre), mirror (of curvature)."),
                "angular_velocity": q("circular_motion: rad/s for a bare number, or \"120 rpm\"."),
                "period": q("circular_motion: period (s)."),
                "frequency": q("Frequency (Hz): circular_motion, wave, doppler (emitted)."),
                "mass": q("Mass (kg, or \"500 g\")."),
                "m1": q("First mass (kg)."),
                "m2": q("Second mass (kg)."),
                "u1": q("collision: velocity of body 1 before (m/s, signed)."),
                "u2": q("collision: velocity of body 2 before (m/s, signed)."),
                "distance": q("Distance (m): gravitation (between centres), work (displacement)."),
                "type": {"enum": ["elastic", "perfectly_inelastic", "inelastic"], "description": "collision: the kind (inelastic needs `restitution`)."},
                "restitution": number("collision: coefficient of restitution, 0 to 1."),
                "force": q("Force (N): work, power.")
            }), json!({
                "work": q("power: work done (J)."),
                "time": q("Time (s): power, rc_circuit, rl_circuit."),
                "specific_heat": q("heat: J/(kg K)."),
                "delta_t": q("Temperature difference (K; \"10 degC\" is a 10 K step): heat, conduction."),
                "initial_temperature": q("heat: initial temperature (K or \"20 degC\")."),
                "final_temperature": q("heat, gas_process: final temperature (K or \"100 degC\")."),
                "latent_heat": q("heat: specific latent heat (J/kg, or \"334 kJ/kg\")."),
                "process": {"enum": ["isothermal", "adiabatic", "isobaric", "isochoric"], "description": "gas_process: the reversible step."},
                "moles": q("gas_process: amount of gas (mol)."),
                "temperature": q("gas_process: initial temperature (K or \"25 degC\")."),
                "volume": q("gas_process: initial volume (m³, or \"10 L\")."),
                "pressure": q("gas_process: initial pressure (Pa, or \"1 atm\")."),
                "final_volume": q("gas_process: final volume."),
                "final_pressure": q("gas_process: final pressure."),
                "gamma": number("gas_process: Cp/Cv (default 5/3, or 1 + R/cv)."),
                "cv": q("gas_process: molar heat capacity at constant volume (J/(mol K); default 3/2 R, or R/(gamma - 1))."),
                "t_hot": q("Hot temperature (K or \"500 degC\"): carnot, conduction."),
                "t_cold": q("Cold temperature: carnot, conduction."),
                "conductivity": q("conduction: thermal conductivity (W/(m K))."),
                "area": q("conduction: area (m²).")
            }), json!({
                "thickness": q("conduction: thickness (m)."),
                "series": list("resistors, capacitors, inductors: values in series."),
                "parallel": list("resistors, capacitors, inductors: values in parallel."),
                "network": {"type": "array", "maxItems": 10000, "items": {"type": "object", "properties": {"from": {"type": ["string", "number"]}, "to": {"type": ["string", "number"]}, "resistance": {"type": ["number", "string"]}}, "required": ["from", "to", "resistance"], "additionalProperties": false}, "description": "resistors: edges between named nodes (0 ohm is a wire)."},
                "between": {"type": "array", "items": {"type": ["string", "number"]}, "minItems": 2, "maxItems": 2, "description": "resistors: the two nodes to measure across."},
                "voltage": q("Voltage (V): ohm; rc_circuit and rl_circuit source (or initial) voltage."),
                "current": q("ohm: current (A)."),
                "resistance": q("Resistance (ohm, or \"10 kohm\")."),
                "power": q("ohm: power (W)."),
                "capacitance": q("rc_circuit: capacitance (F, or \"4.7 uF\")."),
                "inductance": q("rl_circuit: inductance (H, or \"50 mH\")."),
                "mode": {"enum": ["charging", "discharging", "rising", "decaying"], "description": "rc_circuit: charging (default) or discharging; rl_circuit: rising (default) or decaying."},
                "focal_length": q("thin_lens, mirror: focal length (m; converging/concave > 0)."),
                "object_distance": q("thin_lens, mirror: object distance (m; > 0 for a real object)."),
                "n1": number("snell: refractive index of the incident medium."),
                "n2": number("snell: refractive index of the second medium."),
                "speed": q("wave: wave speed (m/s)."),
                "wavelength": q("wave: wavelength (m, or \"500 nm\")."),
                "source_velocity": q("doppler: source speed towards the observer (m/s; negative when receding)."),
                "observer_velocity": q("doppler: observer speed towards the source (m/s; negative when receding).")
            }), json!({
                "wave_speed": q("doppler: speed of the wave (m/s, default 343, sound in air at 20 degC).")
            })] {
                if let Value::Object(m) = part {
                    properties.extend(m);
                }
            }
            json!({"type": "object", "properties": properties, "required": ["operation"], "additionalProperties": false})
        },
        result_schema: json!({
            "type": "object",
            "description": "Keys depend on the operation (see the notes); values are SI numbers, and `units` maps each key to its unit.",
            "properties": {
                "units": {"type": "object"},
                "solutions": {"type": "array", "items": {"type": "object"}},
                "notes": {"type": "array", "items": {"type": "string"}}
            }
        }),
        examples: vec![
            example(
                json!({"operation": "kinematics", "known": {"u": 20, "a": -9.80665, "s": 15}}),
                json!({"solutions": [{"u": 20.0, "v": 10.285937001557029, "a": -9.80665, "t": 0.9905587533401284, "s": 15.0}, {"u": 20.0, "v": -10.285937001557029, "a": -9.80665, "t": 3.088306098571585, "s": 15.0}], "units": {"u": "m/s", "v": "m/s", "a": "m/s^2", "t": "s", "s": "m"}, "notes": ["two motions fit (both with t >= 0), ordered by t: e.g. on the way up and on the way down"]}),
            ),
            example(
                json!({"operation": "projectile", "velocity": "20 m/s", "angle": "30 deg"}),
                json!({"range": 35.324005803589955, "max_height": 5.0985810648896415, "time_of_flight": 2.0394324259558565, "time_to_apex": 1.0197162129779282, "impact_speed": 20.0, "impact_angle": 30.000000000000004, "g": 9.80665, "units": {"range": "m", "max_height": "m", "time_of_flight": "s", "time_to_apex": "s", "impact_speed": "m/s", "impact_angle": "deg", "g": "m/s^2"}}),
            ),
            example(
                json!({"operation": "circular_motion", "radius": "100 m", "velocity": "72 km/h", "mass": "1500 kg"}),
                json!({"velocity": 20.0, "angular_velocity": 0.2, "period": 31.41592653589793, "frequency": 0.03183098861837907, "centripetal_acceleration": 4.0, "centripetal_force": 6000.0, "units": {"velocity": "m/s", "angular_velocity": "rad/s", "period": "s", "frequency": "Hz", "centripetal_acceleration": "m/s^2", "centripetal_force": "N"}}),
            ),
            example(
                json!({"operation": "gravitation", "m1": "70 kg", "m2": 5.972e+24, "distance": "6371 km"}),
                json!({"force": 687.398139835728, "potential_energy": -4379413548.893423, "units": {"force": "N", "potential_energy": "J"}}),
            ),
            example(
                json!({"operation": "orbit", "mass": 5.972e+24, "radius": "42164 km"}),
                json!({"orbital_velocity": 3074.622910711152, "period": 86164.78605197273, "escape_velocity": 4348.173419510753, "gravitational_acceleration": 0.22420325498221036, "units": {"orbital_velocity": "m/s", "period": "s", "escape_velocity": "m/s", "gravitational_acceleration": "m/s^2"}}),
            ),
            example(
                json!({"operation": "collision", "m1": 2, "u1": 4, "m2": 3, "u2": -2, "restitution": 0.5}),
                json!({"v1": -1.4, "v2": 1.6, "momentum": 2.0, "kinetic_energy_before": 22.0, "kinetic_energy_after": 5.800000000000001, "energy_lost": 16.2, "restitution": 0.5, "units": {"v1": "m/s", "v2": "m/s", "momentum": "kg*m/s", "kinetic_energy_before": "J", "kinetic_energy_after": "J", "energy_lost": "J"}}),
            ),
            example(
                json!({"operation": "work", "force": "40 N", "distance": "3 m", "angle": 60}),
                json!({"work": 60.0, "units": {"work": "J"}}),
            ),
            example(
                json!({"operation": "kinetic_energy", "mass": "1500 kg", "velocity": "72 km/h"}),
                json!({"kinetic_energy": 300000.0, "momentum": 30000.0, "units": {"kinetic_energy": "J", "momentum": "kg*m/s"}}),
            ),
            example(
                json!({"operation": "potential_energy", "mass": 2, "height": "10 m"}),
                json!({"potential_energy": 196.13299999999998, "units": {"potential_energy": "J"}}),
            ),
            example(
                json!({"operation": "power", "work": "1.5 kJ", "time": "1 min"}),
                json!({"power": 25.0, "units": {"power": "W"}}),
            ),
            example(
                json!({"operation": "heat", "mass": "500 g", "specific_heat": 4186, "initial_temperature": "20 degC", "final_temperature": "100 degC"}),
                json!({"heat": 167440.0, "delta_t": 80.0, "units": {"heat": "J", "delta_t": "K"}}),
            ),
            example(
                json!({"operation": "gas_process", "process": "adiabatic", "moles": 1, "temperature": "300 K", "volume": "10 L", "final_volume": "20 L", "gamma": 1.4}),
                json!({"work": 1509.9586891275733, "heat": 0.0, "delta_internal_energy": -1509.9586891275733, "initial": {"pressure": 249433.8785445972, "volume": 0.01, "temperature": 300.0}, "final": {"pressure": 94517.76548974714, "volume": 0.02, "temperature": 227.35748497655973}, "moles": 1.0, "cv": 20.786156545383104, "gamma": 1.4, "units": {"work": "J", "heat": "J", "delta_internal_energy": "J", "moles": "mol", "cv": "J/(mol*K)", "initial": {"pressure": "Pa", "volume": "m^3", "temperature": "K"}, "final": {"pressure": "Pa", "volume": "m^3", "temperature": "K"}}}),
            ),
            example(
                json!({"operation": "carnot", "t_hot": "500 degC", "t_cold": "25 degC"}),
                json!({"efficiency": 0.6143697859406325, "cop_refrigerator": 0.6276842105263158, "cop_heat_pump": 1.6276842105263158}),
            ),
            example(
                json!({"operation": "conduction", "conductivity": 0.8, "area": "2 m^2", "thickness": "4 mm", "t_hot": "20 degC", "t_cold": "-5 degC"}),
                json!({"heat_rate": 10000.0, "thermal_resistance": 0.0025, "units": {"heat_rate": "W", "thermal_resistance": "K/W"}}),
            ),
            example(
                json!({"operation": "resistors", "network": [{"from": "a", "to": "c", "resistance": 100}, {"from": "c", "to": "b", "resistance": 200}, {"from": "a", "to": "d", "resistance": 300}, {"from": "d", "to": "b", "resistance": 400}, {"from": "c", "to": "d", "resistance": 50}], "between": ["a", "b"]}),
                json!({"equivalent_resistance": 208.6206896551724, "equivalent_resistance_exact": "6050/29", "units": {"equivalent_resistance": "ohm"}}),
            ),
            example(
                json!({"operation": "capacitors", "series": ["4.7 uF", "10 uF"]}),
                json!({"equivalent_capacitance": 3.197278911564626e-06, "equivalent_capacitance_exact": "47/14700000", "units": {"equivalent_capacitance": "F"}}),
            ),
            example(
                json!({"operation": "inductors", "parallel": ["2 mH", "3 mH"]}),
                json!({"equivalent_inductance": 0.0012, "equivalent_inductance_exact": "3/2500", "units": {"equivalent_inductance": "H"}}),
            ),
            example(
                json!({"operation": "ohm", "voltage": "12 V", "resistance": "4 kohm"}),
                json!({"voltage": 12.0, "current": 0.003, "resistance": 4000.0, "power": 0.036, "units": {"voltage": "V", "current": "A", "resistance": "ohm", "power": "W"}}),
            ),
            example(
                json!({"operation": "rc_circuit", "resistance": "10 kohm", "capacitance": "4.7 uF", "voltage": "5 V", "time": "47 ms"}),
                json!({"time_constant": 0.047, "voltage": 3.1606027941427883, "current": 0.00018393972058572118, "charge": 1.4854833132471105e-05, "energy": 2.347511355250652e-05, "mode": "charging", "units": {"time_constant": "s", "voltage": "V", "current": "A", "charge": "C", "energy": "J"}}),
            ),
            example(
                json!({"operation": "rl_circuit", "resistance": 100, "inductance": "50 mH", "voltage": 12, "time": "1 ms", "mode": "rising"}),
                json!({"time_constant": 0.0005, "current": 0.10375976601160647, "voltage_inductor": 1.6240233988393524, "energy": 0.0002691522260695831, "mode": "rising", "units": {"time_constant": "s", "current": "A", "voltage_inductor": "V", "energy": "J"}}),
            ),
            example(
                json!({"operation": "thin_lens", "focal_length": "10 cm", "object_distance": "30 cm"}),
                json!({"image_distance": 0.15, "magnification": -0.5, "image": "real", "orientation": "inverted", "focal_length": 0.1, "power": 10.0, "units": {"image_distance": "m", "focal_length": "m", "power": "D"}}),
            ),
            example(
                json!({"operation": "mirror", "radius": "-30 cm", "object_distance": "10 cm"}),
                json!({"image_distance": -0.06, "magnification": 0.6, "image": "virtual", "orientation": "upright", "focal_length": -0.15, "power": -6.666666666666667, "units": {"image_distance": "m", "focal_length": "m", "power": "D"}}),
            ),
            example(
                json!({"operation": "snell", "n1": 1.5, "n2": 1.0, "angle": 45}),
                json!({"refraction_angle": null, "total_internal_reflection": true, "critical_angle": 41.810314895778596, "units": {"critical_angle": "deg"}}),
            ),
            example(
                json!({"operation": "wave", "speed": 343, "frequency": "440 Hz"}),
                json!({"speed": 343.0, "frequency": 440.0, "wavelength": 0.7795454545454545, "period": 0.0022727272727272726, "units": {"speed": "m/s", "frequency": "Hz", "wavelength": "m", "period": "s"}}),
            ),
            example(
                json!({"operation": "doppler", "frequency": 500, "source_velocity": "30 m/s"}),
                json!({"observed_frequency": 547.923322683706, "wave_speed": 343.0, "units": {"observed_frequency": "Hz", "wave_speed": "m/s"}}),
            ),
        ],
        notes: include_str!("physics.md").into(),
    }
}
