//! The colours of both views' painters, light and dark: the topology (`Palette`) and the
//! training view's figures (`TrainPalette`).

/// Colours of one theme.
pub struct Palette {
    pub background: &'static str,
    pub node_fill: &'static str,
    pub node_stroke: &'static str,
    pub text: &'static str,
    pub muted: &'static str,
    pub idle_link: &'static str,
    pub gpu: &'static str,
    pub nic: &'static str,
    pub switch: &'static str,
    pub pcie: &'static str,
    pub cpu: &'static str,
    pub reduce: &'static str,
    pub copy: &'static str,
}

pub const LIGHT: Palette = Palette {
    background: "#ffffff",
    node_fill: "#f5f7fa",
    node_stroke: "#c9d1db",
    text: "#1f2430",
    muted: "#667085",
    idle_link: "#d5dae1",
    gpu: "#76b900",
    nic: "#8e9aaf",
    switch: "#3d4a5c",
    pcie: "#a3acb9",
    cpu: "#6b5b95",
    reduce: "#d55e00",
    copy: "#0072b2",
};

pub const DARK: Palette = Palette {
    background: "#181b21",
    node_fill: "#20242c",
    node_stroke: "#3a414d",
    text: "#e6e8ec",
    muted: "#9aa3b2",
    idle_link: "#3a404b",
    gpu: "#5f9400",
    nic: "#6b7487",
    switch: "#4a5568",
    pcie: "#59626f",
    cpu: "#6b5b95",
    reduce: "#ff9a4d",
    copy: "#56b4e9",
};

impl Palette {
    /// The page's theme.
    pub fn of(dark: bool) -> &'static Palette {
        if dark {
            &DARK
        } else {
            &LIGHT
        }
    }
}

/// Colours of the activities (colour-blind-safe Okabe-Ito hues) and of the chrome.
pub struct TrainPalette {
    pub background: &'static str,
    pub text: &'static str,
    pub muted: &'static str,
    pub frame: &'static str,
    pub forward: &'static str,
    pub backward: &'static str,
    pub tp: &'static str,
    /// Expert parallelism's AllToAlls.
    pub ep: &'static str,
    /// Context parallelism's key/value passing.
    pub cp: &'static str,
    pub pp: &'static str,
    pub dp: &'static str,
    pub optimizer: &'static str,
    pub idle: &'static str,
}

pub const TRAIN_LIGHT: TrainPalette = TrainPalette {
    background: "#ffffff",
    text: "#1f2430",
    muted: "#667085",
    frame: "#c9d1db",
    forward: "#009e73",
    backward: "#56b4e9",
    tp: "#e69f00",
    ep: "#d55e00",
    cp: "#8c6bb1",
    pp: "#cc79a7",
    dp: "#0072b2",
    optimizer: "#999999",
    idle: "#eef1f5",
};

pub const TRAIN_DARK: TrainPalette = TrainPalette {
    background: "#181b21",
    text: "#e6e8ec",
    muted: "#9aa3b2",
    frame: "#3a414d",
    forward: "#00b386",
    backward: "#56b4e9",
    tp: "#f0b400",
    ep: "#f07d3c",
    cp: "#b39ddb",
    pp: "#e08cbc",
    dp: "#3d9be0",
    optimizer: "#8a8a8a",
    idle: "#242830",
};

impl TrainPalette {
    /// The page's theme.
    pub fn of(dark: bool) -> &'static TrainPalette {
        if dark {
            &TRAIN_DARK
        } else {
            &TRAIN_LIGHT
        }
    }
}
